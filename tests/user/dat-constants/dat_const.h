/* SPDX-License-Identifier: GPL-2.0 */
/* Shared by the generated kern.c/user.c/meta.c and by main.c. */
#ifndef DAT_CONSTANTS_DAT_CONST_H
#define DAT_CONSTANTS_DAT_CONST_H

struct dat_const {
	const char *name;
	unsigned long long value;
};

/* kern.c: values seen through include/rdma/kdat_types.h */
extern const struct dat_const kern_vals[];
extern const unsigned int kern_vals_count;

/* user.c: the same names, in the same order, seen through <dat2/udat.h> */
extern const struct dat_const user_vals[];
extern const unsigned int user_vals_count;

/* meta.c: NULL-terminated name lists and the Debian constant count */
extern const char *const missing_names[];
extern const char *const kernel_only_names[];
extern const char *const excluded_names[];
extern const unsigned int debian_count;

#endif
