/* sample.c -- the CPU-time sampler: CCE_SAMPLE=HZ.

   Each thread gets a timer of its own CPU time (timer_create with
   CLOCK_THREAD_CPUTIME_ID), which sends SIGPROF to that thread
   (SIGEV_THREAD_ID) every 1/HZ second of CPU time the thread uses: the
   main thread's is made at load time, the other threads' as libcce's
   pthread_create starts them, a fork child's for its one thread (timers
   are not inherited), and each is deleted as its thread exits.  Every
   tick logs one record on the thread it stopped (cce-format.h, "Records
   of interrupted instructions"): tag CCE_TAG_SAMPLE, the PC word of the
   interrupted instruction as its site, and the thread's id and ccStack
   there.  The kernel checks CPU-time timers at its own scheduler tick
   (CONFIG_HZ), so that at a rate above that a signal can stand for
   several periods (the timer's overrun): it logs one record per period,
   so that the records of a thread stay its CPU time times HZ.

   The tick costs one signal delivery and one record: the handler makes
   the record on the fast path of cce_log (no lock, no call) and saves
   errno.  SIGPROF is a kept signal (signal.c): a program that installs a
   handler of its own for it (profiling with setitimer (ITIMER_PROF), say)
   gets every SIGPROF that is not one of libcce's ticks, which are told by
   their si_code (SI_TIMER) and the value libcce gave its timers.  */

#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rt-internal.h"

#ifndef sigev_notify_thread_id
#define sigev_notify_thread_id _sigev_un._tid
#endif

/* The most records one tick logs for the periods it stands for.  */
#define CCE_SAMPLE_MAX_RUN 1000

/* The highest rate CCE_SAMPLE takes.  */
#define CCE_SAMPLE_MAX_HZ 100000

/* The samples per second of CPU time (0: no sampling), and the timers'
   period.  */
static unsigned long cce_sample_hz;
static struct timespec cce_sample_period;

/* The value libcce's timers send with their signal: its address tells a
   tick from any other SIGPROF.  */
static const char cce_sample_cookie;

/* Said that a timer could not be made.  */
static int cce_sample_warned;

/* libcce's handler of SIGPROF: log a tick of a timer of libcce, or do
   what the program chose for any other SIGPROF.  */
static void
cce_sample_handler (int sig, siginfo_t *info, void *context)
{
  if (likely (info->si_code == SI_TIMER
              && info->si_value.sival_ptr == (void *) &cce_sample_cookie))
    {
      if (unlikely (!cce_self.sampling))
        return;                 /* a tick left from a deleted timer */
      int saved_errno = errno;
      uint64_t id;
      uint64_t word = cce_context_word (context, &id);
      int n = info->si_overrun;
      if (unlikely (n < 0 || n >= CCE_SAMPLE_MAX_RUN))
        n = n < 0 ? 0 : CCE_SAMPLE_MAX_RUN - 1;
      do
        cce_log_pc (CCE_TAG_SAMPLE, word, id);
      while (n-- > 0);
      errno = saved_errno;
      return;
    }
  cce_signal_forward (sig, info, context);
}

/* CCE_SAMPLE=HZ: a decimal number of samples per second, 1 to
   CCE_SAMPLE_MAX_HZ; 0 or empty: no sampling.  Anything else: one line on
   standard error, and no sampling.  */
void
cce_sample_init (void)
{
  const char *env = cce_getenv ("CCE_SAMPLE");
  unsigned long hz = 0;
  const char *p;
  if (!env || !*env)
    return;
  for (p = env; *p >= '0' && *p <= '9' && hz <= CCE_SAMPLE_MAX_HZ; p++)
    hz = hz * 10 + (unsigned long) (*p - '0');
  if (*p || hz > CCE_SAMPLE_MAX_HZ)
    {
      char what[160];
      char *q = what, *end = what + sizeof what - 1;
      cce_str_cat (&q, end, "CCE_SAMPLE=");
      for (p = env; *p && q < end - 60; p++)
        *q++ = *p;
      if (*p)
        cce_str_cat (&q, end, "...");
      cce_str_cat (&q, end, " is not a number of samples per second (0 to ");
      cce_str_num (&q, end, CCE_SAMPLE_MAX_HZ);
      cce_str_cat (&q, end, "); sampling is off");
      *q = '\0';
      cce_complain (what, NULL, 0);
      return;
    }
  if (hz == 0)
    return;
  if (!cce_signal_keep (SIGPROF, cce_sample_handler, SA_RESTART, 1))
    {
      cce_complain ("SIGPROF has a handler libcce did not install;"
                    " sampling is off", NULL, 0);
      return;
    }
  unsigned long ns = 1000000000UL / hz;
  cce_sample_period.tv_sec = (time_t) (ns / 1000000000UL);
  cce_sample_period.tv_nsec = (long) (ns % 1000000000UL);
  cce_sample_hz = hz;
}

/* Start the calling thread T's timer.  */
void
cce_sample_thread_start (struct cce_thread *t)
{
  struct sigevent sev;
  struct itimerspec its;
  timer_t timer;
  if (!cce_sample_hz || t->sampling)
    return;
  memset (&sev, 0, sizeof sev);
  sev.sigev_notify = SIGEV_THREAD_ID;
  sev.sigev_signo = SIGPROF;
  sev.sigev_value.sival_ptr = (void *) &cce_sample_cookie;
  sev.sigev_notify_thread_id = gettid ();
  if (timer_create (CLOCK_THREAD_CPUTIME_ID, &sev, &timer) != 0)
    {
      if (!__atomic_exchange_n (&cce_sample_warned, 1, __ATOMIC_RELAXED))
        cce_complain ("cannot make a thread's sampling timer", NULL, errno);
      return;
    }
  its.it_value = cce_sample_period;
  its.it_interval = cce_sample_period;
  t->timer = timer;
  t->sampling = 1;
  if (timer_settime (timer, 0, &its, NULL) != 0)
    {
      t->sampling = 0;
      timer_delete (timer);
    }
}

/* Thread T exits, its signals blocked: delete its timer.  */
void
cce_sample_thread_exit (struct cce_thread *t)
{
  if (!t->sampling)
    return;
  t->sampling = 0;
  timer_delete (t->timer);
}

/* In a fork child: the timer of the thread T that forked was the
   parent's; make the child's.  */
void
cce_sample_fork_child (struct cce_thread *t)
{
  t->sampling = 0;
  cce_sample_thread_start (t);
}
