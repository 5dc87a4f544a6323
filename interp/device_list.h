/* Sets of devices written for people: "0-63", "0-3, 5, 7-8" (used when the
 * same error comes from several devices of a run, interp/run_devices.c). */
#ifndef HLO_INTERP_DEVICE_LIST_H
#define HLO_INTERP_DEVICE_LIST_H

#include <stdbool.h>
#include <stddef.h>

/* Writes the devices d < n with member[d] set into buf as ascending ranges
 * separated by ", " ("" when none).  A list that does not fit ends in
 * "..." (cap >= 4 keeps that readable). */
void device_list_format(const bool *member, int n, char *buf, size_t cap);

#endif
