#!/bin/bash
# The queued send modes (zerocopy, uring, uring-zc) keep several chunks in
# flight at once; whatever the depth and the chunk, the bytes on the wire must
# be the files, in order. Each shape is sent to the capture peer and compared
# byte for byte with an independent encoding, several times over: a chunk sent
# out of turn shows only now and then.
# make check-quick runs this file.
. "$(dirname "$0")/lib.sh"

# Rounds of each shape.
ROUNDS=3

# The files: several MiB of random data, and make_files's awkward sizes.
order_files() {
	make_files "$T/f"
	head -c 8388608 /dev/urandom >"$T/f/8m"
	head -c 3145731 /dev/urandom >"$T/f/3m+3"
}

# queued_mode_keeps_order MODE: every shape, ROUNDS times, three loops a run.
queued_mode_keeps_order() {
	local mode=$1 shape round
	uring_or_skip "$mode"
	order_files
	for shape in "-q 4 -b 1m" "-q 8 -b 512k" "-q 16 -b 256k" "-q 64 -b 64k" \
		"-q 2 -b 100k" "-q 7 -b 300001" "-q 32 -b 40000" "-q 1 -b 2m" "-q 3 -b 3m"; do
		for round in $(seq 1 "$ROUNDS"); do
			# shellcheck disable=SC2086 # a shape is several options
			stream_matches_encoding 3 "$T/f" -m "$mode" $shape
		done
	done
}

# The modes of one chunk at a time read each file at the chunk's offset from a
# descriptor kept open across loops (sendfile and splice from their own
# offsets; memory from its copy): every chunk size, three loops a run, the
# files in order and whole each loop, ROUNDS times.
test_the_unqueued_modes_send_every_byte_in_order_at_every_chunk() {
	local shape round
	order_files
	for shape in "-m sendfile" "-m send -b 1m" "-m send -b 300001" "-m write -b 64k" \
		"-m splice -b 40000" "-m splice -b 1m" "-m memory -b 100k"; do
		for round in $(seq 1 "$ROUNDS"); do
			# shellcheck disable=SC2086 # a shape is several options
			stream_matches_encoding 3 "$T/f" $shape
		done
	done
}

test_zerocopy_sends_every_byte_in_order_at_every_depth_and_chunk() {
	queued_mode_keeps_order zerocopy
}

test_uring_sends_every_byte_in_order_at_every_depth_and_chunk() {
	queued_mode_keeps_order uring
}

test_uring_zc_sends_every_byte_in_order_at_every_depth_and_chunk() {
	queued_mode_keeps_order uring-zc
}

run_tests "$@"
