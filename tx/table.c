#include <string.h>

#include "../lib/opt.h"
#include "tx.h"

/*
 * The table of modes, above the families that define the rows, and the
 * stream's start and end as each row has them.
 */
const struct send_mode *const tx_modes[] = {
	&tx_sendfile, &tx_send, &tx_write, &tx_splice, &tx_zerocopy, &tx_uring, &tx_uring_zc, &tx_memory,
	&tx_dgram_sendmsg, &tx_dgram_sendmmsg, &tx_dgram_gso, &tx_dgram_gso_zerocopy,
	&tx_dgram_uring, &tx_dgram_uring_zc, NULL,
};

const struct send_mode *tx_find_mode(const char *name, int datagram)
{
	for (const struct send_mode *const *m = tx_modes; *m; m++)
		if (strcmp(name, (*m)->name) == 0 && (*m)->datagram == !!datagram)
			return *m;
	return NULL;
}

const char *tx_mode_names(int datagram, int queued_only)
{
	static char names[2][2][256];
	char *out = names[!!datagram][!!queued_only];
	const char *list[16];
	size_t n = 0;

	if (!out[0]) {
		for (const struct send_mode *const *m = tx_modes; *m && n < 16; m++)
			if ((*m)->datagram == !!datagram && (!queued_only || (*m)->queued))
				list[n++] = (*m)->name;
		opt_join_names(out, sizeof(names[0][0]), list, n);
	}
	return out;
}

void tx_send_stream(struct sender *snd, tx_turn_fn turn, void *arg, const struct tx_plan *plan,
		    const struct tx_file *files, size_t n_files, int debug)
{
	snd->mode->send_stream(snd, turn, arg, plan, files, n_files, debug);
}

int tx_await_close(struct sender *snd, long wait_secs)
{
	return snd->mode->await_end(snd, wait_secs);
}
