/* hlorun: every file the run will write is checked before evaluation starts
 * (cmd/hlorun_outputs.c), so that a long run does not end in "cannot write". */
#ifndef HLO_CMD_HLORUN_OUTPUTS_H
#define HLO_CMD_HLORUN_OUTPUTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cmd/hlorun_run.h"

/* --output, --outfeed-dir, --stats=FILE, --trace=FILE: directories exist and
 * are writable, the output's suffix fits the result (.npy: one array of
 * one device).  False with one line (no program prefix) in msg: a usage
 * error (exit 2).  The writers rely on it. */
bool hlorun_check_outputs(const Module *m, const HlorunRunArgs *a, int64_t devices, char *msg,
                          size_t cap);

/* "r1p0_" before "out3" in a multi-device npz ("p" only with partitions). */
void hlorun_device_prefix(const RunResult *r, char *buf, size_t size);

/* The npz entry name of array leaf i of r: prefix, then the module's name
 * for it (Module.result_names: StableHLO's jax.result_info) when it names
 * every leaf, else "out{i}". */
void hlorun_leaf_name(const RunResult *r, int i, const char *prefix, char *buf, size_t size);

/* --output-dir DIR: each device whose result this process holds (with its
 * data) as DIR/r{R}[p{P}].npz, the entries --output FILE.npz would hold
 * for it (r{R}_out{i}); one device: DIR/out.npz (out{i}). */
bool hlorun_write_output_dir(const HlorunRunArgs *a, const RunResult *res, Error *err);

/* --output FILE: .npy for the one array of one device, .npz otherwise
 * (out{i}, or r{R}[p{P}]_out{i} for several devices). */
bool hlorun_write_output(const HlorunRunArgs *a, const RunResult *res, Error *err);

/* --outfeed-dir DIR: DIR/outfeed0.npy, ... (r{R}[p{P}]_ before each name
 * with several devices). */
bool hlorun_write_outfeed(const HlorunRunArgs *a, const RunResult *res, Error *err);

#endif
