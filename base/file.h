/* Reading whole input files, as the commands do for models. */
#ifndef HLO_BASE_FILE_H
#define HLO_BASE_FILE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"

/* The longest file file_read_all takes (8 GiB: HLO text with every
 * constant printed runs to a few GiB for the biggest real models). */
#define FILE_READ_MAX ((size_t)8 << 30)

/* Reads the whole file at path ("-" = standard input) into a malloc'd buffer
 * with a NUL at text[*len] (the lexer's sentinel).  NULL on failure with err
 * (ERR_RUNTIME): "cannot open PATH: reason", "cannot read PATH: reason"
 * (devices such as /dev/zero are refused; so is a stream longer than
 * FILE_READ_MAX). */
char *file_read_all(const char *path, size_t *len, Error *err);

#endif
