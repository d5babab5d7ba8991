/*
 * pack.c - the trailer of a packed index file: what `mcpidx pack` writes
 * after the LMDB data, and what opening and `mcpidx verify` check.
 *
 * Trailer layout, all integers little-endian:
 *
 *   0   8  magic "MCPIDXPK"
 *   8   4  pack format version (MI_PACK_VERSION)
 *   12  4  index format version (MI_FORMAT_VERSION of the packer)
 *   16  8  data length: bytes before the trailer
 *   24  8  number of files in the manifest
 *   32 16  manifest digest: xxh3-128 over "path \0 hash16" of every file,
 *          in path order (MI_DB_FILES order)
 *   48 16  checksum: xxh3-128 of the data bytes
 *   64 32  tool that packed it ("mcpidx 0.1.0"), NUL padded
 *   96 64  git HEAD the index was built from (meta "head"), NUL padded
 *   160 8  build time (meta "built"), seconds since the epoch
 *   168 84 zero
 *   252 4  CRC-32 of trailer bytes 0..251
 */
#include "format.h"

#include <string.h>

static const char pack_magic[8] = {'M', 'C', 'P', 'I', 'D', 'X', 'P', 'K'};

_Static_assert(MI_PACK_TRAILER == 256, "the trailer layout is 256 bytes");

static void put_le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void put_le64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint32_t get_le32(const uint8_t *p)
{
	uint32_t v = 0;
	for (int i = 3; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static uint64_t get_le64(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* CRC-32 (IEEE, the one of zip and PNG) of the trailer. */
static uint32_t crc32_ieee(const uint8_t *p, size_t n)
{
	uint32_t c = 0xffffffffu;
	for (size_t i = 0; i < n; i++) {
		c ^= p[i];
		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1)));
	}
	return c ^ 0xffffffffu;
}

void mi_pack_trailer_encode(const mi_pack_trailer *t, uint8_t out[MI_PACK_TRAILER])
{
	memset(out, 0, MI_PACK_TRAILER);
	memcpy(out, pack_magic, 8);
	put_le32(out + 8, t->pack_version);
	put_le32(out + 12, t->format);
	put_le64(out + 16, t->data_len);
	put_le64(out + 24, t->nfiles);
	memcpy(out + 32, t->digest, 16);
	memcpy(out + 48, t->checksum, 16);
	memcpy(out + 64, t->tool, strnlen(t->tool, 32));
	memcpy(out + 96, t->head, strnlen(t->head, 64));
	put_le64(out + 160, (uint64_t)t->built);
	put_le32(out + 252, crc32_ieee(out, 252));
}

bool mi_pack_has_magic(const uint8_t in[MI_PACK_TRAILER])
{
	return !memcmp(in, pack_magic, 8);
}

int mi_pack_trailer_decode(const uint8_t in[MI_PACK_TRAILER], mi_pack_trailer *t, mi_buf *err)
{
	memset(t, 0, sizeof(*t));
	if (!mi_pack_has_magic(in)) {
		if (err)
			mi_buf_adds(err, "no pack trailer at the end of the file: it is truncated, has "
					 "bytes appended, or was not written by 'mcpidx pack'");
		return MI_ERR_DAMAGED;
	}
	if (crc32_ieee(in, 252) != get_le32(in + 252)) {
		if (err)
			mi_buf_adds(err, "the pack trailer is damaged (CRC mismatch)");
		return MI_ERR_DAMAGED;
	}
	t->pack_version = get_le32(in + 8);
	t->format = get_le32(in + 12);
	t->data_len = get_le64(in + 16);
	t->nfiles = get_le64(in + 24);
	memcpy(t->digest, in + 32, 16);
	memcpy(t->checksum, in + 48, 16);
	memcpy(t->tool, in + 64, 32);
	memcpy(t->head, in + 96, 64);
	t->built = (int64_t)get_le64(in + 160);
	return 0;
}
