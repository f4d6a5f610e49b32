#include <err.h>
#include <stdlib.h>
#include <string.h>

#include "proto.h"

void proto_put_u32(unsigned char out[PROTO_U32_BYTES], uint32_t v)
{
	out[0] = v >> 24;
	out[1] = v >> 16;
	out[2] = v >> 8;
	out[3] = v;
}

uint32_t proto_get_u32(const unsigned char in[PROTO_U32_BYTES])
{
	return (uint32_t)in[0] << 24 | (uint32_t)in[1] << 16 | (uint32_t)in[2] << 8 | in[3];
}

void proto_put_u64(unsigned char out[2 * PROTO_U32_BYTES], uint64_t v)
{
	proto_put_u32(out, v >> 32);
	proto_put_u32(out + PROTO_U32_BYTES, (uint32_t)v);
}

uint64_t proto_get_u64(const unsigned char in[2 * PROTO_U32_BYTES])
{
	return (uint64_t)proto_get_u32(in) << 32 | proto_get_u32(in + PROTO_U32_BYTES);
}

void proto_rx_init(struct proto_rx *rx)
{
	*rx = (struct proto_rx){ .state = PROTO_RX_LOOPS };
}

void proto_rx_free(struct proto_rx *rx)
{
	free(rx->after);
	rx->after = NULL;
	rx->after_len = rx->after_want = 0;
}

/* What came after the stream, kept for as long, and as far, as keep says. */
static void keep_after(struct proto_rx *rx, const unsigned char *buf, size_t len)
{
	while (len && !rx->after_done) {
		size_t n;

		if (rx->after_len == rx->after_want) {
			size_t want = rx->keep(rx->after, rx->after_len, rx->keep_arg);
			unsigned char *p;

			if (want <= rx->after_len) {
				rx->after_done = 1;
				return;
			}
			p = realloc(rx->after, want);
			if (!p)
				err(1, "keeping %zu bytes after the stream", want);
			rx->after = p;
			rx->after_want = want;
		}
		n = len < rx->after_want - rx->after_len ? len : rx->after_want - rx->after_len;
		memcpy(rx->after + rx->after_len, buf, n);
		rx->after_len += n;
		buf += n;
		len -= n;
	}
}

/* One file of the current loop is complete (or there was none): move on. */
static void next_file(struct proto_rx *rx)
{
	if (rx->files_left > 0 && --rx->files_left > 0) {
		rx->state = PROTO_RX_LENGTH;
		return;
	}
	rx->state = --rx->loops_left > 0 ? PROTO_RX_FILES : PROTO_RX_DONE;
}

static void take_header(struct proto_rx *rx, uint32_t v)
{
	switch (rx->state) {
	case PROTO_RX_LOOPS:
		rx->loops_left = v;
		rx->state = v ? PROTO_RX_FILES : PROTO_RX_DONE;
		break;
	case PROTO_RX_FILES:
		rx->files_left = v;
		if (v)
			rx->state = PROTO_RX_LENGTH;
		else
			next_file(rx);
		break;
	case PROTO_RX_LENGTH:
		rx->data_left = v;
		if (v) {
			rx->state = PROTO_RX_DATA;
		} else {
			rx->files_done++;
			next_file(rx);
		}
		break;
	default:
		break;
	}
}

/* Up to len bytes of the file in progress have arrived; returns how many it took. */
static size_t take_data(struct proto_rx *rx, size_t len)
{
	size_t n = len < rx->data_left ? len : rx->data_left;

	rx->data_left -= n;
	if (rx->data_left == 0) {
		rx->files_done++;
		next_file(rx);
	}
	return n;
}

void proto_rx_feed(struct proto_rx *rx, const unsigned char *buf, size_t len)
{
	while (len > 0) {
		if (rx->state == PROTO_RX_DONE) {
			rx->extra_bytes += len;
			if (rx->keep)
				keep_after(rx, buf, len);
			return;
		}
		if (rx->state == PROTO_RX_DATA) {
			size_t n = take_data(rx, len);

			buf += n;
			len -= n;
			continue;
		}
		rx->hdr[rx->hdr_have++] = *buf++;
		len--;
		if (rx->hdr_have == PROTO_U32_BYTES) {
			rx->hdr_have = 0;
			take_header(rx, proto_get_u32(rx->hdr));
		}
	}
}

uint32_t proto_rx_data_due(const struct proto_rx *rx)
{
	return rx->state == PROTO_RX_DATA ? rx->data_left : 0;
}

unsigned proto_rx_header_due(const struct proto_rx *rx)
{
	if (rx->state == PROTO_RX_DATA || rx->state == PROTO_RX_DONE)
		return 0;
	return PROTO_U32_BYTES - rx->hdr_have;
}

void proto_rx_skip(struct proto_rx *rx, size_t len)
{
	if (rx->state == PROTO_RX_DATA)
		take_data(rx, len);
}

const char *proto_rx_waiting_for(const struct proto_rx *rx)
{
	switch (rx->state) {
	case PROTO_RX_DONE:
		return NULL;
	case PROTO_RX_DATA:
		return "file data";
	default:
		return "header";
	}
}

uint64_t proto_stream_bytes(uint32_t n_loops, size_t n_files, uint64_t data_per_loop)
{
	uint64_t per_loop = PROTO_U32_BYTES + n_files * PROTO_U32_BYTES + data_per_loop;

	return PROTO_U32_BYTES + (uint64_t)n_loops * per_loop;
}
