/* DEFLATE members of an .npz (numpy.savez_compressed), through zlib.
 *
 * Nothing is allocated from a size the archive merely declares until it is
 * believed: the declared size must be one deflate can reach from the
 * compressed bytes, and it must equal the size the member's own .npy header
 * describes (read from the first inflated bytes).  The stream must then
 * produce exactly that many bytes, end cleanly and match its CRC-32. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "interp/io/npz_inflate.h"

/* Deflate's best ratio is 1032:1 (258-byte matches in ~2 bits); anything
 * declaring more is corrupt or a zip bomb. */
enum { DEFLATE_MAX_RATIO = 1032, DEFLATE_SLACK = 1024 };
/* The .npy header must be within the first PEEK bytes (numpy writes 64- to
 * a few hundred-byte headers; 64 KiB is the whole of a version 1 header). */
enum { PEEK = 65536 + 12 };

static bool member_error(Error *err, const char *what, const char *name, const char *why) {
  return error_set(err, ERR_RUNTIME, -1, "%s: compressed member '%s' %s", what, name, why);
}

/* Inflates into out[*done .. cap) from the stream; Z_STREAM_END, Z_OK (out
 * full) or an error code. */
static int inflate_into(z_stream *zs, uint8_t *out, size_t cap, size_t *done) {
  int rc = Z_OK;
  while (*done < cap) {
    size_t room = cap - *done;
    zs->next_out = out + *done;
    zs->avail_out = room > UINT32_MAX ? UINT32_MAX : (uInt)room;
    uInt before = zs->avail_out;
    rc = inflate(zs, Z_NO_FLUSH);
    *done += before - zs->avail_out;
    if (rc == Z_STREAM_END) return rc;
    if (rc != Z_OK) return rc;
    if (before == zs->avail_out && zs->avail_in == 0) return Z_BUF_ERROR;
  }
  return rc;
}

static bool stream_error(Error *err, const char *what, const char *name, int rc, const z_stream *zs) {
  char why[256];
  if (rc == Z_BUF_ERROR)
    snprintf(why, sizeof why, "is truncated: its deflate stream ends early");
  else if (rc == Z_MEM_ERROR)
    snprintf(why, sizeof why, "cannot be inflated: out of memory");
  else
    snprintf(why, sizeof why, "has a corrupt deflate stream (%s)", zs->msg ? zs->msg : "bad data");
  return member_error(err, what, name, why);
}

bool npz_inflate_member(const uint8_t *src, uint64_t csize, uint64_t usize, uint32_t crc, const char *what,
                        const char *name, uint8_t **out, Error *err) {
  *out = NULL;
  char why[256];
  if (usize > csize * DEFLATE_MAX_RATIO + DEFLATE_SLACK) {
    snprintf(why, sizeof why,
             "declares %" PRIu64 " bytes from %" PRIu64 " compressed, more than deflate can produce "
             "(corrupt, or a zip bomb)",
             usize, csize);
    return member_error(err, what, name, why);
  }
  if (usize > SIZE_MAX - 1) return member_error(err, what, name, "is too large for this machine");
  z_stream zs;
  memset(&zs, 0, sizeof zs);
  if (inflateInit2(&zs, -MAX_WBITS) != Z_OK) /* raw deflate, as zip stores it */
    return member_error(err, what, name, "cannot be inflated: zlib failed to start");
  zs.next_in = (Bytef *)(uintptr_t)src;
  uint64_t in_left = csize;
  bool ok = false;
  uint8_t *peek = NULL, *buf = NULL;
  size_t done = 0;
  int rc;
  /* zlib counts input in uInt: feed at most 4 GiB at a time. */
#define FEED()                                                                              \
  do {                                                                                      \
    if (zs.avail_in == 0 && in_left) {                                                      \
      zs.avail_in = in_left > UINT32_MAX ? UINT32_MAX : (uInt)in_left;                      \
      in_left -= zs.avail_in;                                                               \
    }                                                                                       \
  } while (0)

  /* 1. The first bytes: the .npy header says how large the member is. */
  size_t peek_cap = usize < PEEK ? (size_t)usize : PEEK;
  peek = malloc(peek_cap ? peek_cap : 1);
  if (!peek) {
    member_error(err, what, name, "cannot be inflated: out of memory");
    goto done;
  }
  do {
    FEED();
    rc = inflate_into(&zs, peek, peek_cap, &done);
  } while (rc == Z_BUF_ERROR && zs.avail_in == 0 && in_left);
  if (rc != Z_OK && rc != Z_STREAM_END) {
    stream_error(err, what, name, rc, &zs);
    goto done;
  }
  if (rc == Z_STREAM_END && done < usize) {
    snprintf(why, sizeof why, "inflates to %zu bytes, its directory declares %" PRIu64, done, usize);
    member_error(err, what, name, why);
    goto done;
  }
  char member_what[512];
  snprintf(member_what, sizeof member_what, "%s[%s]", what, name);
  uint64_t want;
  if (!npy_image_size(peek, done, member_what, &want, err)) goto done;
  if (want != usize) {
    snprintf(why, sizeof why,
             "declares %" PRIu64 " bytes but its .npy header describes %" PRIu64 " (corrupt, or a zip bomb)",
             usize, want);
    member_error(err, what, name, why);
    goto done;
  }
  /* 2. The rest, into a buffer of the size now believed. */
  buf = malloc(usize ? (size_t)usize : 1);
  if (!buf) {
    snprintf(why, sizeof why, "cannot be inflated: out of memory for %" PRIu64 " bytes", usize);
    member_error(err, what, name, why);
    goto done;
  }
  memcpy(buf, peek, done);
  while (rc != Z_STREAM_END && done < usize) {
    FEED();
    rc = inflate_into(&zs, buf, (size_t)usize, &done);
    if (rc == Z_BUF_ERROR && zs.avail_in == 0 && in_left) continue;
    if (rc != Z_OK && rc != Z_STREAM_END) {
      stream_error(err, what, name, rc, &zs);
      goto done;
    }
  }
  if (done < usize) {
    snprintf(why, sizeof why, "inflates to %zu bytes, its directory declares %" PRIu64, done, usize);
    member_error(err, what, name, why);
    goto done;
  }
  /* 3. Full: the stream must end here, with nothing more to give. */
  if (rc != Z_STREAM_END) {
    uint8_t extra;
    size_t one = 0;
    do {
      FEED();
      rc = inflate_into(&zs, &extra, 1, &one);
    } while (rc == Z_BUF_ERROR && zs.avail_in == 0 && in_left);
    if (one) {
      snprintf(why, sizeof why, "inflates to more than its declared %" PRIu64 " bytes (corrupt, or a zip bomb)",
               usize);
      member_error(err, what, name, why);
      goto done;
    }
    if (rc != Z_STREAM_END) {
      stream_error(err, what, name, rc == Z_OK ? Z_BUF_ERROR : rc, &zs);
      goto done;
    }
  }
  uint32_t got_crc = 0;
  for (uint64_t at = 0; at < usize;) {
    uInt n = usize - at > UINT32_MAX ? UINT32_MAX : (uInt)(usize - at);
    got_crc = (uint32_t)crc32(got_crc, buf + at, n);
    at += n;
  }
  if (got_crc != crc) {
    member_error(err, what, name, "fails its CRC check");
    goto done;
  }
  *out = buf;
  buf = NULL;
  ok = true;
done:
#undef FEED
  inflateEnd(&zs);
  free(peek);
  free(buf);
  return ok;
}
