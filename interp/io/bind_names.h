/* Which .npz entry binds which entry parameter (docs/cli.md "How .npz
 * entries bind"): the names a parameter answers to, most specific first,
 * and the matching of named entries to parameters (interp/io/bind_names.c). */
#ifndef HLO_INTERP_IO_BIND_NAMES_H
#define HLO_INTERP_IO_BIND_NAMES_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"
#include "parser/ir.h"

enum { BIND_NAMES_MAX = 8, BIND_NAME_LEN = 256 };

typedef struct ParamNames {
  int n;
  char name[BIND_NAMES_MAX][BIND_NAME_LEN];
} ParamNames;

/* Parameter p of computation c answers to, in this order: its HLO name
 * ("x.1", and "%x.1"), its name in the computation's signature, the HLO name
 * without XLA's ".N" suffix ("x"), the op_name of its metadata (JAX: "x",
 * "args[0]", "params['w']"), and "argN" (N = p).  No name twice. */
void param_names(const Computation *c, int p, ParamNames *out);

/* "x.1, x, arg0" (at most cap bytes). */
void param_names_text(const ParamNames *pn, char *buf, size_t cap);

/* The op_name="..." value of a raw metadata={...} text, unescaped, into
 * buf; false if there is none. */
bool metadata_op_name(const char *raw, char *buf, size_t cap);

/* For each of the n entry names (NULL: a .npy, never bound by name),
 * owner[i] = the parameter it binds by name, or -1.  An entry that names
 * two parameters equally well, or a parameter named by two entries, is an
 * Error listing the names tried (sources[i] name the entries). */
bool bind_by_name(const Computation *c, const char *const *names, const char *const *sources, int n,
                  int *owner, Error *err);

#endif
