/* Device sets as ranges (interp/device_list.h). */
#include "interp/device_list.h"

#include <stdio.h>
#include <string.h>

void device_list_format(const bool *member, int n, char *buf, size_t cap) {
  if (cap == 0) return;
  buf[0] = '\0';
  size_t len = 0, safe = 0; /* safe: the last range end with room for "..." */
  for (int d = 0; d < n; d++) {
    if (!member[d]) continue;
    int last = d;
    while (last + 1 < n && member[last + 1]) last++;
    char part[32];
    if (last == d) snprintf(part, sizeof part, "%s%d", len ? ", " : "", d);
    else snprintf(part, sizeof part, "%s%d-%d", len ? ", " : "", d, last);
    size_t plen = strlen(part);
    if (len + plen >= cap) { /* cut where a whole range ends, then "..." */
      if (cap >= 4) memcpy(buf + safe, "...", 4);
      else buf[0] = '\0';
      return;
    }
    memcpy(buf + len, part, plen + 1);
    len += plen;
    if (len + 4 <= cap) safe = len;
    d = last;
  }
}
