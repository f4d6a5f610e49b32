#include <string.h>

#include "../lib/opt.h"
#include "rx.h"

/* The table of modes, above the families that define the rows. */
const struct recv_mode *const rx_modes[] = {
	&rx_read, &rx_trunc, &rx_splice, &rx_zerocopy,
	&rx_dgram_read, &rx_dgram_recvmmsg, &rx_dgram_gro, &rx_dgram_trunc, NULL,
};

const struct recv_mode *rx_find_mode(const char *name, int datagram)
{
	for (const struct recv_mode *const *m = rx_modes; *m; m++)
		if (strcmp(name, (*m)->name) == 0 && (*m)->datagram == !!datagram)
			return *m;
	return NULL;
}

const char *rx_mode_names(int datagram)
{
	static char names[2][256];
	char *out = names[!!datagram];
	const char *list[16];
	size_t n = 0;

	if (!out[0]) {
		for (const struct recv_mode *const *m = rx_modes; *m && n < 16; m++)
			if ((*m)->datagram == !!datagram)
				list[n++] = (*m)->name;
		opt_join_names(out, sizeof(names[0]), list, n);
	}
	return out;
}
