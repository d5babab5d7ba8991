/*
 * mp_read.h - the bounded msgpack reader the record decoders share (not
 * public; format.h has the API).  Records are decoded on every view, so
 * they skip msgpack-c's object model (a zone allocation per record, and
 * declared sizes trusted) and read the bytes directly: every length is
 * checked against the end before it is used, and a read that fails sets
 * bad, after which every read returns zero, so a decoder checks once at
 * its end.  Used by record.c (symbols, references, chunks), side.c
 * (artifact records) and catalog.c (tool and server records).
 */
#ifndef MI_MP_READ_H
#define MI_MP_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct mp_rd {
	const uint8_t *p;   /* next byte */
	const uint8_t *end; /* one past the last byte */
	bool bad;           /* a read failed; later reads return zero */
} mp_rd;

/* n big-endian bytes. */
static inline uint64_t rd_be(mp_rd *r, int n)
{
	uint64_t v = 0;
	if (r->bad || r->end - r->p < n) {
		r->bad = true;
		return 0;
	}
	for (int i = 0; i < n; i++)
		v = v << 8 | r->p[i];
	r->p += n;
	return v;
}

/* An array header: its element count. */
static inline uint32_t rd_array(mp_rd *r)
{
	uint8_t c = (uint8_t)rd_be(r, 1);
	if (c >= 0x90 && c <= 0x9f)
		return c & 0x0f;
	if (c == 0xdc)
		return (uint32_t)rd_be(r, 2);
	if (c == 0xdd)
		return (uint32_t)rd_be(r, 4);
	r->bad = true;
	return 0;
}

/* Any msgpack integer, signed (a uint64 over INT64_MAX is bad). */
static inline int64_t rd_int(mp_rd *r)
{
	if (!r->bad && r->p < r->end && *r->p <= 0x7f)
		return *r->p++; /* positive fixint: most fields */
	uint8_t c = (uint8_t)rd_be(r, 1);
	if (c <= 0x7f)
		return c;
	if (c >= 0xe0)
		return (int8_t)c;
	switch (c) {
	case 0xcc: return (int64_t)rd_be(r, 1);
	case 0xcd: return (int64_t)rd_be(r, 2);
	case 0xce: return (int64_t)rd_be(r, 4);
	case 0xcf: {
		uint64_t v = rd_be(r, 8);
		if (v > INT64_MAX)
			r->bad = true;
		return (int64_t)v;
	}
	case 0xd0: return (int8_t)rd_be(r, 1);
	case 0xd1: return (int16_t)rd_be(r, 2);
	case 0xd2: return (int32_t)rd_be(r, 4);
	case 0xd3: return (int64_t)rd_be(r, 8);
	}
	r->bad = true;
	return 0;
}

/* A str (bin: a bin) without copying: *n bytes at the returned pointer
 * (NULL and 0 when bad). */
static inline const uint8_t *rd_raw(mp_rd *r, bool bin, size_t *n)
{
	uint8_t c = (uint8_t)rd_be(r, 1);
	uint64_t len = 0;
	if (!bin && c >= 0xa0 && c <= 0xbf)
		len = c & 0x1f;
	else if (c == (bin ? 0xc4 : 0xd9))
		len = rd_be(r, 1);
	else if (c == (bin ? 0xc5 : 0xda))
		len = rd_be(r, 2);
	else if (c == (bin ? 0xc6 : 0xdb))
		len = rd_be(r, 4);
	else
		r->bad = true;
	if (r->bad || (uint64_t)(r->end - r->p) < len) {
		r->bad = true;
		*n = 0;
		return NULL;
	}
	const uint8_t *p = r->p;
	r->p += len;
	*n = (size_t)len;
	return p;
}

#endif
