/* multi_tu.h -- shared declarations of the three TUs of multi_tu.  */
#ifndef MULTI_TU_H
#define MULTI_TU_H

extern volatile int mt_sink;

/* multi_tu.c */
void shared_leaf (unsigned tag);
int a_chain (int depth);
int a_fan (int n);

/* multi_tu_b.c */
int b_step (int depth);
int b_twice (int n);
int b_helper_user (int n);
void b_to_shared (unsigned tag);

/* multi_tu_c.c */
int c_step (int depth);
int c_fan (int n);
int c_helper_user (int n);
void c_at_exit (void);

#endif
