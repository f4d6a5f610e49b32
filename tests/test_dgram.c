#include <stdint.h>

#include "../lib/dgram.h"
#include "check.h"

static void header_is_laid_out_as_documented(void)
{
	struct dgram_header h = { .kind = DGRAM_DATA, .stream = 0x01020304, .loop = 5,
				  .seq = 0x1122334455667788ULL, .file = 9, .offset = 0xa0b0c0d0 };
	const unsigned char want[DGRAM_HEADER_BYTES] = {
		'z', 'c', 'D', 'G', 0, 0, 0, 1, 1, 2, 3, 4, 0, 0, 0, 5,
		0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0, 0, 0, 9, 0xa0, 0xb0, 0xc0, 0xd0,
	};
	unsigned char b[DGRAM_HEADER_BYTES];
	struct dgram_header back;

	dgram_put_header(b, &h);
	CHECK(memcmp(b, want, sizeof(b)) == 0);
	CHECK(dgram_parse(b, sizeof(b), &back, NULL) == 0);
	CHECK(back.kind == h.kind && back.stream == h.stream && back.loop == h.loop);
	CHECK(back.seq == h.seq && back.file == h.file && back.offset == h.offset);
}

static void end_carries_its_byte_count(void)
{
	struct dgram_header h = { .kind = DGRAM_END, .stream = 7, .loop = 2, .seq = 100, .file = 3 };
	unsigned char b[DGRAM_END_BYTES];
	struct dgram_header back;
	uint64_t bytes = 0;

	dgram_put_end(b, &h, 0x0102030405060708ULL);
	CHECK(b[32] == 1 && b[39] == 8);
	CHECK(dgram_parse(b, sizeof(b), &back, &bytes) == 0);
	CHECK_EQ_U64(bytes, 0x0102030405060708ULL);
	CHECK_EQ_U64(back.seq, 100);
	/* An END cut short of its count is not one. */
	CHECK(dgram_parse(b, DGRAM_END_BYTES - 1, &back, &bytes) < 0);
}

static void junk_is_not_a_datagram_of_ours(void)
{
	unsigned char b[DGRAM_END_BYTES];
	struct dgram_header h = { .kind = DGRAM_DATA }, back;

	dgram_put_header(b, &h);
	CHECK(dgram_parse(b, DGRAM_HEADER_BYTES - 1, &back, NULL) < 0);
	b[0] ^= 1;
	CHECK(dgram_parse(b, sizeof(b), &back, NULL) < 0);
	h.kind = 4;
	dgram_put_header(b, &h);
	CHECK(dgram_parse(b, sizeof(b), &back, NULL) < 0);
	h.kind = 0;
	dgram_put_header(b, &h);
	CHECK(dgram_parse(b, sizeof(b), &back, NULL) < 0);
	h = (struct dgram_header){ .kind = DGRAM_DATA, .seq = DGRAM_MAX_SEQ };
	dgram_put_header(b, &h);
	CHECK(dgram_parse(b, sizeof(b), &back, NULL) < 0);
	h.seq = DGRAM_MAX_SEQ - 1;
	dgram_put_header(b, &h);
	CHECK(dgram_parse(b, sizeof(b), &back, NULL) == 0);
}

static void in_order_counts_nothing_lost(void)
{
	static struct dgram_count c;

	dgram_count_init(&c);
	for (uint64_t s = 0; s < 200000; s++)
		dgram_count_add(&c, s, 100);
	CHECK_EQ_U64(c.datagrams, 200000);
	CHECK_EQ_U64(c.bytes, 20000000);
	CHECK_EQ_U64(dgram_count_lost(&c, 1, 200000), 0);
	CHECK_EQ_U64(dgram_count_lost(&c, 0, 0), 0);
	CHECK_EQ_U64(c.out_of_order + c.duplicated, 0);
	/* The END says more were sent than came: the rest were lost. */
	CHECK_EQ_U64(dgram_count_lost(&c, 1, 200007), 7);
}

static void gaps_duplicates_and_late_ones_are_told_apart(void)
{
	static struct dgram_count c;
	const uint64_t seqs[] = { 0, 1, 3, 2, 2, 5, 9, 4, 9, 0, 10 };

	dgram_count_init(&c);
	for (size_t i = 0; i < sizeof(seqs) / sizeof(seqs[0]); i++)
		dgram_count_add(&c, seqs[i], 10);
	CHECK_EQ_U64(c.datagrams, 11);
	CHECK_EQ_U64(c.distinct, 8);		/* 0 1 2 3 4 5 9 10 */
	CHECK_EQ_U64(c.duplicated, 3);		/* 2, 9, 0 again */
	CHECK_EQ_U64(c.out_of_order, 2);	/* 2 after 3, 4 after 9 */
	CHECK_EQ_U64(dgram_count_lost(&c, 0, 0), 3);	/* 6 7 8 */
	CHECK_EQ_U64(dgram_count_lost(&c, 1, 12), 4);		/* and 11 */
	/* An END may claim any count, 2^64 - 1 too: all but those that came are lost. */
	CHECK_EQ_U64(dgram_count_lost(&c, 1, UINT64_MAX), UINT64_MAX - c.distinct);
}

static void the_window_forgets_what_it_slid_past(void)
{
	static struct dgram_count c;

	dgram_count_init(&c);
	dgram_count_add(&c, 5, 1);
	/* A jump of more than the window: 5 is too far back to know it came. */
	dgram_count_add(&c, 5 + DGRAM_WINDOW + 10, 1);
	dgram_count_add(&c, 5, 1);
	CHECK_EQ_U64(c.duplicated, 0);
	CHECK_EQ_U64(c.out_of_order, 1);
	/* Within the window after a jump, a number not seen is new; one seen, a duplicate. */
	dgram_count_add(&c, 5 + DGRAM_WINDOW, 1);
	dgram_count_add(&c, 5 + DGRAM_WINDOW, 1);
	CHECK_EQ_U64(c.out_of_order, 2);
	CHECK_EQ_U64(c.duplicated, 1);
	/* A number one window back shares its bit with the newest: cleared as the window moved. */
	dgram_count_init(&c);
	dgram_count_add(&c, 0, 1);
	dgram_count_add(&c, DGRAM_WINDOW, 1);
	dgram_count_add(&c, 0, 1);
	CHECK_EQ_U64(c.duplicated, 0);
	CHECK_EQ_U64(c.distinct, 3);
	CHECK_EQ_U64(dgram_count_lost(&c, 1, DGRAM_WINDOW + 1), DGRAM_WINDOW + 1 - 3);
}

static void more_came_than_were_sent_is_no_loss(void)
{
	static struct dgram_count c;

	dgram_count_init(&c);
	for (uint64_t s = 0; s < 10; s++)
		dgram_count_add(&c, s, 1);
	CHECK_EQ_U64(dgram_count_lost(&c, 1, 4), 0);
}

/* A file's datagrams: its bytes in slices of dgram_bytes less the header; one for an empty file. */
static void a_files_datagrams_are_its_slices(void)
{
	CHECK_EQ_U64(dgram_file_datagrams(0, 1472), 1);
	CHECK_EQ_U64(dgram_file_datagrams(1, 1472), 1);
	CHECK_EQ_U64(dgram_file_datagrams(1440, 1472), 1);
	CHECK_EQ_U64(dgram_file_datagrams(1441, 1472), 2);
	CHECK_EQ_U64(dgram_file_datagrams(15000, 1472), 11);
	CHECK_EQ_U64(dgram_file_datagrams(777, 33), 777);
	CHECK_EQ_U64(dgram_file_datagrams(4294967295ULL, 65507), 65598);
}

int main(void)
{
	RUN(header_is_laid_out_as_documented);
	RUN(end_carries_its_byte_count);
	RUN(junk_is_not_a_datagram_of_ours);
	RUN(in_order_counts_nothing_lost);
	RUN(gaps_duplicates_and_late_ones_are_told_apart);
	RUN(the_window_forgets_what_it_slid_past);
	RUN(more_came_than_were_sent_is_no_loss);
	RUN(a_files_datagrams_are_its_slices);
	return CHECK_EXIT();
}
