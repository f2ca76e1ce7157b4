/* shlib.h -- interfaces of the shlib end-to-end test.  */
#ifndef SHLIB_H
#define SHLIB_H
/* libcceshl.so, built with cce.  */
int lib_work (int n);
int lib_apply (int (*fn) (int), int x);
void lib_register (int (*fn) (int));
int lib_fire (int x);
int lib_call_exe (int x);
int lib_cb (int x);
void lib_sort (int *v, int n);
int lib_rec (int n);
int lib_pub (int x);
int lib_uses_pub (int x);
/* libccemid.so, built without cce.  */
int mid_call (int (*fn) (int), int x);
/* The executable, exported to the libraries.  */
int exe_hook (int x);
#endif
