## testsuite/e2e/tests.mk -- end-to-end tests, included by
## testsuite/Makefile.am (paths relative to testsuite/).
##
## Each e2e/NAME.sh runs e2e/run-e2e.sh NAME: the program e2e/NAME*.c is
## built with the plugin at -O1/-O2/-O3, with and without LTO partitioning,
## its decoded log compared with the contexts gdb sees in an -O0 build
## (e2e/oracle.py; e2e/oracle-early.py for ctors, which logs before
## main).  cxx, cxxexc, cxxthread, cxxsplit, cxxasync and cxxcoro are C++ programs, built
## with g++ (cxx with a C unit too).  bigprog's and overflow's sources are generated at test time by
## e2e/gen-bigprog.sh and e2e/gen-overflow.sh.  nonlto links an object
## built without -flto (e2e/nonlto_ext.c); extmain's main is in one
## (e2e/extmain_main.c).  shlib links a shared library
## built with cce (e2e/shlib_lib.c) and one built without (e2e/shlib_mid.c);
## shlibguess one built with cce whose functions share a table with the
## executable's (e2e/shlibguess_lib.c), and shlibquiet the same library
## from an executable that never logs itself.  bad-input.sh checks errors on
## bad input.  redzone.sh checks a leaf function's red zone across the
## cold grow of a push (plain C results, no oracle needed).
## death.sh checks that every record of a process that dies (signals,
## abort, _exit, exec, kills from outside) is in its log, randomkill.sh
## that every record whose cce_log returned survives a SIGKILL at a random
## moment, forkkill.sh that a fork child killed with SIGKILL keeps its
## records in its own log and the parent (ending by exit, SIGKILL or exec)
## its own, logerr.sh that a log that cannot be written costs the program
## one line on stderr and nothing else, enospc.sh the same of a log that
## fills its file system (a small tmpfs; skipped unless root), whose
## records that fit must decode.  Their programs log through
## e2e/crashlog.h; e2e/crash.sh holds their shell helpers (the gdb oracle
## of each class of path, the counts the programs keep in a shared file)
## and e2e/crashcheck.awk checks the decoded records.  torn.sh kills a
## program under gdb at the store that would make its last record valid:
## the record must be skipped and counted, every other one decoded.
## aggregate.sh runs e2e/aggregate.c (threads of events from many
## contexts, cce_log and cce_count) with CCE_MODE=aggregate against
## CCE_MODE=log: the same folded output and value sums; Space-Saving
## bounds with a small CCE_MAX_CONTEXTS; the tables of a process killed
## with SIGKILL; aggregated samples; bad CCE_MODE and CCE_MAX_CONTEXTS.
## heap.sh runs e2e/heap.c (allocations of every kind, threads, a leak,
## a constructor's block, a peak) with CCE_HEAP=1 against gdb
## (e2e/heaporacle.py: breakpoints on the C library's allocator in an -O0
## build; e2e/heapcmp.py compares per context); the peak, the folded,
## pprof and speedscope outputs, CCE_HEAP_SAMPLE, bad settings.
## nomap.sh gives the log a file system that cannot map it (an mmap shim,
## nomap.c): it is written as a stream, and every record decodes.
## coldunwind.sh runs e2e/coldunwind.c under gdb with e2e/coldunwind.py:
## backtraces at the register-keeping cold push, pop and grow, and at
## every instruction of each cold call (no oracle either).
## pcstep.sh runs e2e/pcstep.c under gdb one instruction at a time
## (pcstep.py): at every instruction, a record as the sampler would make
## it there, and gdb's backtrace as the oracle; every decoded record must
## be gdb's context or marked incomplete, and under async with every call
## encoded incomplete only where the PC map (pcmap.py) says so.
## crashrec.sh checks the record of a thread that dies of a signal
## (e2e/crashrec.c: faults, abort, exhausted stacks, on the main thread
## and another, and a program handler that leaves by siglongjmp), and
## that the process ends as it does with CCE_CRASH=0 (e2e/waitstatus.py);
## sample.sh the CPU-time sampler (e2e/sample.c): sample records per
## thread against its CPU time, a program's own SIGPROF profiling, and a
## bad CCE_SAMPLE.  Both read the log raw with e2e/pcrecords.py, which
## places PC words with nm.
## asynctick.sh and crashctx.sh check the paths cce-decode gives records
## of interrupted instructions against gdb, in the same run as the log.
## asynctick.sh runs e2e/asynctick.c (CPU-bound calls of every kind, on 3
## threads) with CCE_SAMPLE=1000 under gdb (e2e/asynctick.py, a
## breakpoint on libcce's cce_log_pc that never stops): each tick's
## context below the signal frame, thread by thread and in order; every
## decoded record must be exact or incomplete, and under async with
## every call encoded incomplete only where the PC map says so.
## crashctx.sh makes e2e/crashctx.c die in five ways (faults through
## inlined and indirect calls, a division by zero, abort under a deep
## recursion, an exhausted stack, a qsort comparator on a second thread)
## under gdb (e2e/crashctx.py), which takes the context at the fatal
## signal before libcce's handler runs; the crash record must be that.
## profiles.sh checks the pprof and speedscope outputs and --depth of
## cce-decode on the log of e2e/profiles.c (e2e/profiles.py), with the
## real pprof, protoc and speedscope's JSON schema where they can be had
## (kept in tools/ of the build tree).

E2E_TESTS = \
	e2e/multi_tu.sh \
	e2e/cxx.sh \
	e2e/cxxexc.sh \
	e2e/cxxthread.sh \
	e2e/cxxsplit.sh \
	e2e/cxxasync.sh \
	e2e/cxxcoro.sh \
	e2e/inline.sh \
	e2e/clones.sh \
	e2e/recursion.sh \
	e2e/tailcall.sh \
	e2e/clobber.sh \
	e2e/setjmp.sh \
	e2e/unwind.sh \
	e2e/sigasync.sh \
	e2e/threadorigin.sh \
	e2e/noreturn.sh \
	e2e/fnptr.sh \
	e2e/entries.sh \
	e2e/guess.sh \
	e2e/guessafter.sh \
	e2e/replmalloc.sh \
	e2e/rtalloc.sh \
	e2e/threads.sh \
	e2e/bigprog.sh \
	e2e/ctors.sh \
	e2e/cfeatures.sh \
	e2e/overflow.sh \
	e2e/nonlto.sh \
	e2e/extmain.sh \
	e2e/openmp.sh \
	e2e/sigsync.sh \
	e2e/shlib.sh \
	e2e/shlibguess.sh \
	e2e/shlibquiet.sh \
	e2e/trace.sh \
	e2e/tailjump.sh \
	e2e/redzone.sh \
	e2e/death.sh \
	e2e/randomkill.sh \
	e2e/forkkill.sh \
	e2e/logerr.sh \
	e2e/procs.sh \
	e2e/enospc.sh \
	e2e/torn.sh \
	e2e/aggregate.sh \
	e2e/heap.sh \
	e2e/nomap.sh \
	e2e/coldunwind.sh \
	e2e/pcstep.sh \
	e2e/crashrec.sh \
	e2e/sample.sh \
	e2e/asynctick.sh \
	e2e/crashctx.sh \
	e2e/profiles.sh \
	e2e/bad-input.sh

E2E_EXTRA = \
	e2e/env.sh \
	e2e/run-e2e.sh \
	e2e/oracle.py \
	e2e/oracle-early.py \
	e2e/gen-bigprog.sh \
	e2e/gen-overflow.sh \
	e2e/multi_tu.h \
	e2e/cxx.h \
	e2e/cxx.cc \
	e2e/cxx_b.cc \
	e2e/cxx_c.c \
	e2e/cxxexc.cc \
	e2e/cxxthread.cc \
	e2e/cxxsplit.cc \
	e2e/cxxasync.cc \
	e2e/cxxcoro.cc \
	e2e/multi_tu.c \
	e2e/multi_tu_b.c \
	e2e/multi_tu_c.c \
	e2e/inline.c \
	e2e/clones.c \
	e2e/recursion.c \
	e2e/tailcall.c \
	e2e/tailjump.c \
	e2e/clobber.c \
	e2e/setjmp.c \
	e2e/unwind.c \
	e2e/sigasync.c \
	e2e/threadorigin.c \
	e2e/noreturn.c \
	e2e/fnptr.c \
	e2e/entries.c \
	e2e/guess.c \
	e2e/guessafter.c \
	e2e/replmalloc.c \
	e2e/rtalloc.c \
	e2e/threads.c \
	e2e/ctors.c \
	e2e/cfeatures.c \
	e2e/cfeatures_b.c \
	e2e/nonlto.c \
	e2e/nonlto_ext.c \
	e2e/extmain.c \
	e2e/extmain_main.c \
	e2e/openmp.c \
	e2e/sigsync.c \
	e2e/shlib.h \
	e2e/shlib.c \
	e2e/shlib_lib.c \
	e2e/shlib_mid.c \
	e2e/shlibguess.h \
	e2e/shlibguess.c \
	e2e/shlibguess_lib.c \
	e2e/shlibquiet.c \
	e2e/trace.c \
	e2e/redzone.c \
	e2e/crashlog.h \
	e2e/crash.sh \
	e2e/crashcheck.awk \
	e2e/death.c \
	e2e/aggregate.c \
	e2e/heap.c \
	e2e/heaporacle.py \
	e2e/heapcmp.py \
	e2e/randomkill.c \
	e2e/forkkill.c \
	e2e/logerr.c \
	e2e/procs.c \
	e2e/torn.c \
	e2e/torn.py \
	e2e/nomap.c \
	e2e/coldunwind.c \
	e2e/coldunwind.py \
	e2e/pcstep.c \
	e2e/pcstep.py \
	e2e/pcmap.py \
	e2e/crashrec.c \
	e2e/sample.c \
	e2e/pcrecords.py \
	e2e/waitstatus.py \
	e2e/asynctick.c \
	e2e/asynctick.py \
	e2e/crashctx.c \
	e2e/crashctx.py \
	e2e/profiles.c \
	e2e/profiles.py

## cce as users install and use it: cce-gcc.sh runs the build tree's
## driver/cce-gcc on every kind of command line and as the compiler of a
## tiny autoconf and CMake project; install.sh installs the build tree
## into a scratch DESTDIR and builds the example with what it installed
## (install.sh --deb, the Debian packages instead, is "make check-deb" at
## the top).  Both compare the example's decoded log with
## examples/hello.expected, which example.sh checks against gdb.
E2E_TESTS += e2e/example.sh e2e/cce-gcc.sh e2e/install.sh
