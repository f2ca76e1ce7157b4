/* shlibguess.h -- interfaces of the shlibguess end-to-end test.  */
#ifndef SHLIBGUESS_H
#define SHLIBGUESS_H
/* libccesg.so, built with cce.  */
int sg_lib_work (int x);
int sg_lib_hook (int x);
int (*sg_get_hook (void)) (int);   /* a static function of the library */
/* The executable.  */
int exe_hook (int x);
#endif
