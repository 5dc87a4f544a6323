/* _xla_send_recv_source_target_pairs (interp/send_recv_pairs.h). */
#include "interp/send_recv_pairs.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

bool send_recv_pairs(const Instr *in, int64_t (*pairs)[2], int *n, Error *err) {
  *n = 0;
  const Attr *a = ir_attr(in, ATTR_FRONTEND_ATTRIBUTES);
  const char *s = a && (a->kind == AV_RAW || a->kind == AV_STRING) ? a->v.s : NULL;
  const char *key = "_xla_send_recv_source_target_pairs";
  const char *p = s ? strstr(s, key) : NULL;
  if (!p) return true;
  p = strchr(p + strlen(key), '"');
  const char *end = p ? strchr(p + 1, '"') : NULL;
  if (!end)
    return error_set(err, ERR_RUNTIME, in->offset,
                     "instruction %s: malformed %s frontend attribute", in->name, key);
  /* {{s,t},{s,t},...}: each inner group exactly two ids. */
  int depth = 0, ningroup = 0;
  for (p++; p < end; p++) {
    bool bad = false;
    if (*p == '{') {
      bad = depth == 2;
      depth++;
      ningroup = 0;
    } else if (*p == '}') {
      bad = depth == 0 || (depth == 2 && ningroup != 2);
      if (!bad && depth == 2) (*n)++;
      depth--;
    } else if (isdigit((unsigned char)*p)) {
      bad = depth != 2 || ningroup == 2;
      if (!bad && *n == SEND_RECV_MAX_PAIRS)
        return error_set(err, ERR_RUNTIME, in->offset, "instruction %s: more than %d pairs",
                         in->name, SEND_RECV_MAX_PAIRS);
      if (!bad) {
        char *stop;
        pairs[*n][ningroup++] = strtoll(p, &stop, 10);
        p = stop - 1;
      }
    } else {
      bad = *p != ',' && *p != ' ';
    }
    if (bad) {
      *n = 0;
      return error_set(err, ERR_RUNTIME, in->offset,
                       "instruction %s: %s must hold pairs {{source,target},...}", in->name, key);
    }
  }
  if (depth != 0) {
    *n = 0;
    return error_set(err, ERR_RUNTIME, in->offset,
                     "instruction %s: %s must hold pairs {{source,target},...}", in->name, key);
  }
  return true;
}
