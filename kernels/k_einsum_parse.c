/* Einsum config text -> numeric labels (k_einsum.h), following XLA's
 * NormalizeEinsumString and ParseEinsumString. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/k_einsum.h"

/* Implicit output ("ab,bc"): "->", "..." when the config has one, then the
 * letters occurring exactly once, in ASCII order.  NULL when out of memory. */
static char *normalize(const char *config) {
  size_t n = strlen(config);
  char *s = malloc(n + 3 + 3 + 128 + 1);
  if (!s) return NULL;
  memcpy(s, config, n);
  size_t w = n;
  if (strstr(config, "->")) {
    s[w] = 0;
    return s;
  }
  int count[128] = {0};
  for (const char *p = config; *p; p++)
    if (isascii((unsigned char)*p) && isalpha((unsigned char)*p)) count[(int)*p]++;
  s[w++] = '-', s[w++] = '>';
  if (strstr(config, "...")) s[w++] = '.', s[w++] = '.', s[w++] = '.';
  for (int c = 0; c < 128; c++)
    if (count[c] == 1) s[w++] = (char)c;
  s[w] = 0;
  return s;
}

static bool label_char(char d, Error *err) {
  if (isascii((unsigned char)d) && isalpha((unsigned char)d)) return true;
  if (d == '.') return error_set(err, ERR_RUNTIME, -1, "einsum config: unsupported \".\" (only \"...\")");
  return error_set(err, ERR_RUNTIME, -1, "einsum config: unexpected character '%c'", d);
}

static bool push(int *labels, int *n, int v, Error *err) {
  if (*n >= K_EINSUM_MAX_LABELS)
    return error_set(err, ERR_RUNTIME, -1, "einsum config: more than %d labels in one term",
                     K_EINSUM_MAX_LABELS);
  labels[(*n)++] = v;
  return true;
}

/* One term [s, e).  Inputs (rank >= 0) compute their ellipsis rank into
 * *ell; the output (rank < 0) uses *ell as given. */
static bool term(const char *s, const char *e, int rank, int *ell, int *labels, int *n,
                 Error *err) {
  const char *dots = NULL;
  for (const char *p = s; p + 3 <= e; p++)
    if (!memcmp(p, "...", 3)) {
      if (dots) return error_set(err, ERR_RUNTIME, -1, "einsum config: too many ellipses (\"...\")");
      dots = p;
      p += 2;
    }
  *n = 0;
  if (dots && rank >= 0) {
    *ell = rank - (int)((dots - s) + (e - dots - 3));
    if (*ell < 0)
      return error_set(err, ERR_RUNTIME, -1,
                       "einsum config: too few dimensions in the input for the given config");
  }
  for (const char *p = s; p < (dots ? dots : e); p++)
    if (!label_char(*p, err) || !push(labels, n, *p, err)) return false;
  if (!dots) return true;
  for (int i = *ell; i > 0; i--)
    if (!push(labels, n, -i, err)) return false;
  for (const char *p = dots + 3; p < e; p++)
    if (!label_char(*p, err) || !push(labels, n, *p, err)) return false;
  return true;
}

bool k_einsum_parse(const char *config, int x_rank, int y_rank, KEinsumConfig *c, Error *err) {
  char *s = normalize(config);
  if (!s) return error_set(err, ERR_RUNTIME, -1, "out of memory");
  memset(c, 0, sizeof *c);
  bool ok = true;
  const char *comma = strchr(s, ','), *arrow = comma ? strstr(comma + 1, "->") : NULL;
  if (!comma || strchr(comma + 1, ','))
    ok = error_set(err, ERR_RUNTIME, -1, "einsum config \"%s\": expected one \",\"", config);
  else if (!arrow || strstr(arrow + 2, "->"))
    ok = error_set(err, ERR_RUNTIME, -1, "einsum config \"%s\": expected one \"->\" after the \",\"",
                   config);
  int xell = 0, yell = 0;
  ok = ok && term(s, comma, x_rank, &xell, c->x, &c->nx, err) &&
       term(comma + 1, arrow, y_rank, &yell, c->y, &c->ny, err);
  int oell = xell > yell ? xell : yell;
  ok = ok && term(arrow + 2, s + strlen(s), -1, &oell, c->out, &c->nout, err);
  if (ok && (c->nx != x_rank || c->ny != y_rank))
    ok = error_set(err, ERR_RUNTIME, -1,
                   "einsum config \"%s\" names %d and %d dimensions, the operands have %d and %d",
                   config, c->nx, c->ny, x_rank, y_rank);
  free(s);
  return ok;
}
