/* Reading whole input files, as the commands do for models. */
#ifndef HLO_BASE_FILE_H
#define HLO_BASE_FILE_H

#include <stddef.h>

#include "base/error.h"

/* Reads the whole file at path ("-" = standard input) into a malloc'd buffer
 * with a NUL at text[*len] (the lexer's sentinel).  NULL on failure with err
 * (ERR_RUNTIME): "cannot open PATH: reason" or "cannot read PATH". */
char *file_read_all(const char *path, size_t *len, Error *err);

#endif
