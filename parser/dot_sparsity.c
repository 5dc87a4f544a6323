/* The structured-sparsity attribute of a dot (parser/dot_sparsity.h). */
#include "parser/dot_sparsity.h"

#include <stdlib.h>

int dot_sparsity_parse(const char *s, DotSparsity *out, int max) {
  int k = 0;
  while (s && *s && k < max) {
    char *end;
    DotSparsity sp;
    if (*s != 'L' && *s != 'R') return -1;
    sp.side = *s == 'R';
    if (s[1] != '.') return -1;
    sp.dim = strtoll(s + 2, &end, 10);
    if (*end != '@') return -1;
    sp.n = strtoll(end + 1, &end, 10);
    if (*end != ':') return -1;
    sp.m = strtoll(end + 1, &end, 10);
    if (sp.n <= 0 || sp.m <= 0) return -1;
    out[k++] = sp;
    s = *end == '_' ? end + 1 : end;
  }
  return k;
}
