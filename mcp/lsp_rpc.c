/*
 * lsp_rpc.c - LSP base protocol framing: `Content-Length: N\r\n\r\n` headers
 * before each JSON-RPC body, in both directions.
 */
#include "lsp_int.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/uio.h>
#include <unistd.h>

#define MI_HEADER_MAX 8192  /* longest header block we wait for */
#define MI_READ_CHUNK 65536

/* First occurrence of pat (pn bytes) in h[0..n), or NULL. */
static const char *find(const char *h, size_t n, const char *pat, size_t pn)
{
	for (size_t i = 0; i + pn <= n; i++)
		if (h[i] == pat[0] && !memcmp(h + i, pat, pn))
			return h + i;
	return NULL;
}

/* Reads more input: 1 got bytes, 0 end of input, 2 timed out. */
static int fill(mi_lsp_reader *r, int timeout_ms)
{
	struct pollfd pf = {.fd = r->fd, .events = POLLIN};
	ssize_t n;
	if (r->eof)
		return 0;
	if (timeout_ms >= 0) {
		int pr;
		while ((pr = poll(&pf, 1, timeout_ms)) < 0 && errno == EINTR)
			;
		if (pr == 0)
			return 2;
	}
	if (r->off && r->off == r->in.len) {
		mi_buf_reset(&r->in);
		r->off = 0;
	} else if (r->off > MI_READ_CHUNK) {
		memmove(r->in.buf, r->in.buf + r->off, r->in.len - r->off);
		r->in.len -= r->off;
		r->off = 0;
	}
	mi_buf_grow(&r->in, MI_READ_CHUNK);
	while ((n = read(r->fd, r->in.buf + r->in.len, MI_READ_CHUNK)) < 0 && errno == EINTR)
		;
	if (n <= 0) {
		r->eof = true;
		return 0;
	}
	r->in.len += (size_t)n;
	r->in.buf[r->in.len] = 0;
	return 1;
}

/* The value of Content-Length in a header block, or -1 when missing or
 * malformed. */
static long long content_length(const char *h, size_t n)
{
	const char *end = h + n;
	while (h < end) {
		const char *eol = find(h, (size_t)(end - h), "\r\n", 2);
		if (!eol)
			eol = end;
		if ((size_t)(eol - h) > 15 && strncasecmp(h, "Content-Length:", 15) == 0) {
			const char *p = h + 15;
			long long v = 0;
			while (p < eol && (*p == ' ' || *p == '\t'))
				p++;
			if (p == eol)
				return -1;
			for (; p < eol && *p >= '0' && *p <= '9'; p++) {
				v = v * 10 + (*p - '0');
				if (v > (long long)1 << 40)
					return -1;
			}
			while (p < eol && (*p == ' ' || *p == '\t'))
				p++;
			return p == eol ? v : -1;
		}
		h = eol + 2;
	}
	return -1;
}

/*
 * After a framing error: drops input up to the next "Content-Length:" (any
 * case), which then starts the input; true when one was found.  What is
 * scanned is dropped as it goes (all but a tail that may begin the
 * header), so junk never piles up and no byte is scanned twice over.
 */
static bool resync(mi_lsp_reader *r)
{
	static const char pat[] = "Content-Length:";
	const size_t pn = sizeof pat - 1;
	const char *h = r->in.buf ? r->in.buf + r->off : "";
	size_t avail = r->in.len - r->off;
	for (size_t i = 0; i + pn <= avail; i++)
		if ((h[i] | 0x20) == 'c' && !strncasecmp(h + i, pat, pn)) {
			r->off += i;
			r->resync = false;
			return true;
		}
	if (avail >= pn)
		r->off += avail - (pn - 1);
	return false;
}

int mi_lsp_read(mi_lsp_reader *r, int timeout_ms, mi_buf *body, mi_buf *err)
{
	for (;;) {
		const char *h, *hend;
		size_t avail;
		int f;
		if (r->resync && !resync(r))
			goto more;
		h = r->in.buf ? r->in.buf + r->off : "";
		avail = r->in.len - r->off;
		hend = avail ? find(h, avail, "\r\n\r\n", 4) : NULL;
		if (hend && (size_t)(hend - h) > MI_HEADER_MAX) {
			/* its body, if any, is not framed: skip to the next header */
			r->off += (size_t)(hend - h) + 4;
			r->resync = true;
			mi_buf_addf(err, "a message header of %zu bytes, over the limit of %d; "
				    "skipped", (size_t)(hend - h), MI_HEADER_MAX);
			return -1;
		}
		if (hend) {
			size_t hl = (size_t)(hend - h);
			long long n = content_length(h, hl);
			if (n < 0) {
				/* Without a length the body that follows cannot be
				 * told from the next header: skip to the next
				 * Content-Length, which may even sit later in this
				 * block (junk before a header). */
				r->off++;
				r->resync = true;
				mi_buf_addf(err, "a message header without a valid Content-Length "
					    "(got \"%.*s\"); skipped up to the next Content-Length "
					    "header", (int)(hl < 200 ? hl : 200), h);
				return -1;
			}
			if ((size_t)n > MI_LSP_MAX_MSG) {
				/* Consume the header now, the body as it arrives. */
				size_t left = (size_t)n;
				r->off += hl + 4;
				while (left) {
					size_t have = r->in.len - r->off, take = have < left ? have : left;
					r->off += take;
					left -= take;
					if (left && fill(r, -1) != 1)
						break;
				}
				mi_buf_addf(err, "a message of %lld bytes, over the limit of %zu; skipped",
					    n, MI_LSP_MAX_MSG);
				return -1;
			}
			if (avail >= hl + 4 + (size_t)n) {
				mi_buf_reset(body);
				mi_buf_add(body, hend + 4, (size_t)n);
				r->off += hl + 4 + (size_t)n;
				return 0;
			}
		} else if (avail > MI_HEADER_MAX) {
			r->off++;
			r->resync = true;
			mi_buf_addf(err, "%zu bytes without the blank line that ends a header "
				    "(Content-Length: N\\r\\n\\r\\n); dropped up to the next "
				    "Content-Length header", avail);
			return -1;
		}
more:
		f = fill(r, timeout_ms);
		if (f == 0)
			return 1;
		if (f == 2)
			return 2;
	}
}

int mi_lsp_write(int fd, const char *body, size_t len)
{
	char head[64];
	struct iovec iov[2];
	int n = 2;
	iov[0].iov_base = head;
	iov[0].iov_len = (size_t)snprintf(head, sizeof head, "Content-Length: %zu\r\n\r\n", len);
	iov[1].iov_base = (void *)body;
	iov[1].iov_len = len;
	while (n > 0) {
		ssize_t w = writev(fd, iov + (2 - n), n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return errno;
		}
		while (n > 0 && (size_t)w >= iov[2 - n].iov_len) {
			w -= (ssize_t)iov[2 - n].iov_len;
			n--;
		}
		if (n > 0) {
			iov[2 - n].iov_base = (char *)iov[2 - n].iov_base + w;
			iov[2 - n].iov_len -= (size_t)w;
		}
	}
	return 0;
}
