#include "../lib/proto.h"
#include "check.h"

/* Two loops of two files, "abc" and "", written out by hand. */
static const unsigned char two_loops[] = {
	0, 0, 0, 2,			/* n_loops */
	0, 0, 0, 2,			/* n_files */
	0, 0, 0, 3, 'a', 'b', 'c',	/* length, data */
	0, 0, 0, 0,			/* empty file */
	0, 0, 0, 2,
	0, 0, 0, 3, 'a', 'b', 'c',
	0, 0, 0, 0,
};

static void u32_is_big_endian(void)
{
	unsigned char b[4];
	const unsigned char want[4] = { 0x12, 0x34, 0x56, 0x78 };

	proto_put_u32(b, 0x12345678);
	CHECK(memcmp(b, want, 4) == 0);
	CHECK_EQ_U64(proto_get_u32(want), 0x12345678);
	proto_put_u32(b, 0xffffffff);
	CHECK(b[0] == 0xff && b[1] == 0xff && b[2] == 0xff && b[3] == 0xff);
	CHECK_EQ_U64(proto_get_u32((const unsigned char[]){ 0, 0, 1, 0 }), 256);
}

static void whole_stream_in_one_piece_completes(void)
{
	struct proto_rx rx;

	proto_rx_init(&rx);
	proto_rx_feed(&rx, two_loops, sizeof(two_loops));
	CHECK(proto_rx_waiting_for(&rx) == NULL);
	CHECK_EQ_U64(rx.files_done, 4);
	CHECK_EQ_U64(rx.extra_bytes, 0);
}

static void stream_fed_byte_by_byte_completes(void)
{
	struct proto_rx rx;

	proto_rx_init(&rx);
	for (size_t i = 0; i < sizeof(two_loops); i++) {
		CHECK(proto_rx_waiting_for(&rx) != NULL);
		proto_rx_feed(&rx, two_loops + i, 1);
	}
	CHECK(proto_rx_waiting_for(&rx) == NULL);
	CHECK_EQ_U64(rx.files_done, 4);
}

/*
 * A receiver that reads exactly the header bytes due and skips the data
 * unseen, as zcs -m trunc and -m splice do, walks the stream the same way.
 */
static void skipping_data_as_told_walks_the_same_stream(void)
{
	struct proto_rx rx;
	size_t at = 0, reads = 0;

	proto_rx_init(&rx);
	CHECK_EQ_U64(proto_rx_header_due(&rx), 4);
	CHECK_EQ_U64(proto_rx_data_due(&rx), 0);
	while (at < sizeof(two_loops) && reads++ < 100) {
		uint32_t data = proto_rx_data_due(&rx);
		unsigned hdr = proto_rx_header_due(&rx);

		CHECK((data == 0) != (hdr == 0));
		if (data) {
			CHECK_EQ_U64(data, 3);
			CHECK(memcmp(two_loops + at, "abc", 3) == 0);
			proto_rx_skip(&rx, 2);
			CHECK_EQ_U64(proto_rx_data_due(&rx), 1);
			proto_rx_skip(&rx, 1);
			at += 3;
		} else {
			/* A header due arrives in two pieces here: 1 byte, then the rest. */
			proto_rx_feed(&rx, two_loops + at, 1);
			CHECK_EQ_U64(proto_rx_header_due(&rx), hdr - 1);
			proto_rx_feed(&rx, two_loops + at + 1, hdr - 1);
			at += hdr;
		}
	}
	CHECK_EQ_U64(at, sizeof(two_loops));
	CHECK(proto_rx_waiting_for(&rx) == NULL);
	CHECK_EQ_U64(rx.files_done, 4);
	CHECK_EQ_U64(proto_rx_header_due(&rx), 0);
	CHECK_EQ_U64(proto_rx_data_due(&rx), 0);
	/* After the end, skipping counts nothing: extra bytes must be read to be counted. */
	proto_rx_skip(&rx, 5);
	CHECK_EQ_U64(rx.extra_bytes, 0);
}

static void cut_short_says_what_it_waits_for(void)
{
	struct proto_rx rx;

	proto_rx_init(&rx);
	CHECK_STR(proto_rx_waiting_for(&rx), "header");
	proto_rx_feed(&rx, two_loops, 6); /* inside n_files */
	CHECK_STR(proto_rx_waiting_for(&rx), "header");
	proto_rx_init(&rx);
	proto_rx_feed(&rx, two_loops, 13); /* two bytes into "abc" */
	CHECK_STR(proto_rx_waiting_for(&rx), "file data");
	proto_rx_init(&rx);
	proto_rx_feed(&rx, two_loops, 15); /* just after "abc": next length */
	CHECK_STR(proto_rx_waiting_for(&rx), "header");
	proto_rx_feed(&rx, two_loops + 15, sizeof(two_loops) - 16);
	CHECK_STR(proto_rx_waiting_for(&rx), "header");
}

static void zero_loops_and_zero_files_are_complete(void)
{
	static const unsigned char no_loops[] = { 0, 0, 0, 0 };
	static const unsigned char empty_loops[] = { 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 };
	struct proto_rx rx;

	proto_rx_init(&rx);
	proto_rx_feed(&rx, no_loops, sizeof(no_loops));
	CHECK(proto_rx_waiting_for(&rx) == NULL);
	proto_rx_init(&rx);
	proto_rx_feed(&rx, empty_loops, sizeof(empty_loops) - 1);
	CHECK_STR(proto_rx_waiting_for(&rx), "header");
	proto_rx_feed(&rx, empty_loops + sizeof(empty_loops) - 1, 1);
	CHECK(proto_rx_waiting_for(&rx) == NULL);
	CHECK_EQ_U64(rx.files_done, 0);
}

static void bytes_after_the_end_are_counted(void)
{
	unsigned char more[sizeof(two_loops) + 5];
	struct proto_rx rx;

	memcpy(more, two_loops, sizeof(two_loops));
	memset(more + sizeof(two_loops), 'x', 5);
	proto_rx_init(&rx);
	proto_rx_feed(&rx, more, sizeof(more));
	CHECK(proto_rx_waiting_for(&rx) == NULL);
	CHECK_EQ_U64(rx.extra_bytes, 5);
}

static void huge_counts_cost_nothing(void)
{
	static const unsigned char huge[] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
					      0xff, 0xff, 0xff, 0xff, 1, 2, 3 };
	struct proto_rx rx;

	proto_rx_init(&rx);
	proto_rx_feed(&rx, huge, sizeof(huge));
	CHECK_STR(proto_rx_waiting_for(&rx), "file data");
	CHECK_EQ_U64(rx.data_left, 0xffffffffu - 3);
}

static void stream_bytes_counts_every_header(void)
{
	CHECK_EQ_U64(proto_stream_bytes(2, 2, 3), sizeof(two_loops));
	CHECK_EQ_U64(proto_stream_bytes(0, 2, 3), 4);
	/* The most the protocol can carry, 2^32 - 1 loops of files of 4 GiB - 1: no overflow. */
	CHECK_EQ_U64(proto_stream_bytes(0xffffffffu, 1, 0xffffffffULL),
		     4 + 0xffffffffULL * (4 + 4 + 0xffffffffULL));
}

int main(void)
{
	RUN(u32_is_big_endian);
	RUN(whole_stream_in_one_piece_completes);
	RUN(stream_fed_byte_by_byte_completes);
	RUN(skipping_data_as_told_walks_the_same_stream);
	RUN(cut_short_says_what_it_waits_for);
	RUN(zero_loops_and_zero_files_are_complete);
	RUN(bytes_after_the_end_are_counted);
	RUN(huge_counts_cost_nothing);
	RUN(stream_bytes_counts_every_header);
	return CHECK_EXIT();
}
