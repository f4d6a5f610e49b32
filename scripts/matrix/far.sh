# zc-matrix's far end, sourced by it: its variables (remote, remote_dir,
# remote_zcs, far_token, tare_ms, work) are the script's.

# The far end (--remote): zcs started there through the command, in
# --remote-dir, its stdout (the -J summaries) and stderr coming back through
# it. The far shell waits on its stdin, a FIFO here, and stops zcs when it
# ends: far_zcs_stop closes it, and so does this script's exit, however it
# comes; and when a signal ends the far shell itself (Ctrl-C to the group,
# with --netns), whose background zcs ignores SIGINT, as every background
# job of a shell does. A far zcs that does not start is the end of the run, in one line.
declare -A far_fd far_pid
# far_connect: with ssh, one connection to the far host for every far
# command (ControlMaster), opened here and closed by far_disconnect: each
# command was a login of its own (0.2 s each between namespaces here,
# round trips and more on a network). Where it cannot be opened, each
# command logs in as before. Idle for 30 s, it ends by itself, should
# this script be killed.
far_master=()
far_connect() {
	[ "$remote_is_ssh" = 1 ] || return 0
	local ssh=("${remote[@]:0:${#remote[@]}-1}") dest=${remote[-1]}
	"${ssh[@]}" -o ControlMaster=yes -o "ControlPath=$work/ssh-%C" -o ControlPersist=30 -f -N "$dest" \
		</dev/null >/dev/null 2>"$work/ssh-master.err" || return 0
	far_master=("${ssh[@]}" -o "ControlPath=$work/ssh-%C" -O exit "$dest")
	remote=("${ssh[@]}" -o ControlMaster=no -o "ControlPath=$work/ssh-%C" "$dest")
	echo "# the far end's commands share one connection ($remote_cmd -o ControlMaster=yes -f -N), closed at the end"
}
far_disconnect() {
	[ ${#far_master[@]} = 0 ] || timeout 3 "${far_master[@]}" </dev/null >/dev/null 2>&1 || true
}
# far_sh SCRIPT: run a shell script on the far host (ssh gets it as one word).
# What goes into SCRIPT from outside (the far directory, zcs's path, its
# arguments) is quoted with printf %q: a directory's name is never code.
far_sh() {
	if [ "$remote_is_ssh" = 1 ]; then
		"${remote[@]}" "sh -c $(printf %q "$1")"
	else
		"${remote[@]}" sh -c "$1"
	fi
}
# far_zcs_start OUT ZCS_ARGS...: zcs -d -t 3600 on a port it finds free
# there, into far_port. Not in $(...): the FIFO must stay open here.
far_zcs_start() {
	local out=$1 port fd try
	shift
	for try in 1 2 3 4 5; do
		port=$((20000 + RANDOM % 40000))
		echo "# $remote_cmd $remote_zcs -d -p $port -t 3600 $*  (in $remote_dir)" >&3
		rm -f "$out.in"
		mkfifo "$out.in"
		exec {fd}<>"$out.in"
		# The hold's token first (the far shell reads it), then nothing until the end.
		printf '%s\n' "$far_token" >&"$fd"
		# The far end must hold no FIFO open itself, its own or another far
		# zcs's: it would keep that zcs from ever seeing the end of it.
		(
			for f in $fd "${far_fd[@]}"; do
				eval "exec $f>&-"
			done
			far_sh "cd $(printf %q "$remote_dir") && { read -r t; ZC_METER_INSIDE=\$t $(printf %q "$remote_zcs") -d -p $port -t 3600 $(printf '%q ' "$@") </dev/null & p=\$!; trap 'kill \$p; exit 1' INT TERM HUP; cat >/dev/null; kill \$p; }"
		) <"$out.in" >"$out" 2>"$out.err" &
		far_pid[$out]=$!
		bench_record $!
		far_fd[$out]=$fd
		echo "$! $fd" >>"$work/far"
		if bench_zcs_listening "$out.err" "${far_pid[$out]}" $((tare_ms / 50 + 200)); then
			far_port=$port
			return
		fi
		far_zcs_stop "$out"
		grep -q 'in use' "$out.err" || break
	done
	bench_die "the far end ($remote_cmd) did not start zcs: $(head -n 1 "$out.err")"
}
far_zcs_stop() {
	local fd=${far_fd[$1]:-}
	[ -n "$fd" ] && exec {fd}>&-
	wait "${far_pid[$1]}" 2>/dev/null || true
}
