/* cce.h -- the public interface of libcce, the cce runtime.

   A program built with the cce plugin (pkg-config --cflags --libs cce)
   calls cce_log (TAG) wherever it wants its calling context recorded.  The
   plugin rewrites each such call so that the runtime knows the exact call
   site; the log file (see cce(3) and the CCE_LOG environment variable) is
   then turned back into call paths by cce-decode(1).

   cce_count (TAG, VALUE) records the context the same way, with a value
   that cce-decode sums per context.

   A program built without the plugin may call cce_log and cce_count too:
   the records then carry no site, and cce-decode reports their contexts
   as unknown.  */

#ifndef CCE_H
#define CCE_H

/* The version of this header's interface.  */
#define CCE_H_VERSION 2

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Record the calling context of this call together with TAG, a number of
   the program's choosing, in the log of the process.  Records of one
   thread appear in the log in the order they were made.  Safe to call from
   any thread, from constructors, destructors and atexit handlers, and from
   signal handlers.  Never fails: if the log cannot be written, one line
   is printed on standard error and the records are dropped.  */
void cce_log (unsigned tag)
#if defined __GNUC__
  __attribute__ ((__nothrow__))
#endif
  ;

/* Record the calling context of this call with TAG, as cce_log does,
   together with VALUE (bytes allocated, time spent... of the program's
   choosing): cce-decode(1) sums the values of each context.  With
   CCE_MODE=aggregate the runtime keeps one count and one sum per
   context instead of a record per call (cce(3)).  Safe where cce_log is,
   and never fails either.  */
void cce_count (unsigned tag, uint64_t value)
#if defined __GNUC__
  __attribute__ ((__nothrow__))
#endif
  ;

#ifdef __cplusplus
}
#endif

#endif /* CCE_H */
