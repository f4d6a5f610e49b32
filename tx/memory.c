/*
 * memory: the file set read once, before the clock starts, and every file
 * then sent from memory with send(), -b bytes a call, as iperf3 sends its
 * one buffer: how fast the path goes with no file read in the run. The
 * stream is the same; each file's length is its size as it was read.
 */
#include <err.h>
#include <stdlib.h>
#include <unistd.h>

#include "tx.h"

/* A page-aligned copy of each file, read whole (one that shrank meanwhile ends the run). */
static void load_files(struct sender *snd, const struct tx_file *files, size_t n_files)
{
	snd->mem_files = files;
	snd->mem = calloc(n_files, sizeof(*snd->mem));
	snd->mem_sizes = calloc(n_files, sizeof(*snd->mem_sizes));
	if (!snd->mem || !snd->mem_sizes)
		err(1, "calloc");
	for (size_t i = 0; i < n_files; i++) {
		struct tx_file now;
		int fd = tx_open_file(snd, &files[i], &now);
		size_t room = ((size_t)now.size + 4095) / 4096 * 4096;

		if (posix_memalign((void **)&snd->mem[i], 4096, room ? room : 4096) != 0)
			errx(1, "%s: no memory to hold its %llu bytes (-m memory holds every file)",
			     files[i].path, (unsigned long long)now.size);
		for (uint64_t at = 0; at < now.size;)
			at += tx_read_chunk(fd, snd->mem[i] + at, now.size - at, &now, at);
		tx_close_file(snd, &files[i], fd, &now);
		snd->mem_sizes[i] = now.size;
	}
	snd->n_mem = n_files;
}

/* One file, from its copy: its length as read, then -b bytes a send(). */
static void send_file_memory(struct sender *snd, const struct tx_file *f)
{
	size_t i = f - snd->mem_files;
	const struct tx_file now = { .path = f->path, .size = snd->mem_sizes[i] };

	tx_send_length(snd, now.size);
	for (uint64_t at = 0; at < now.size;) {
		size_t n = tx_chunk_at(snd, &now, at);

		tx_send_bytes(snd, snd->mem[i] + at, n);
		at += n;
	}
}

static void free_files(struct sender *snd)
{
	for (size_t i = 0; i < snd->n_mem; i++)
		free(snd->mem[i]);
	free(snd->mem);
	free(snd->mem_sizes);
	snd->n_mem = 0;
}

const struct send_mode tx_memory = { .name = "memory", .send_stream = tx_stream_send,
				     .await_end = tx_stream_await_close, .load = load_files,
				     .send_file = send_file_memory, .unload = free_files,
				     .chunked = 1, .io = NET_IO_SEND };
