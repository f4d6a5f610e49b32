# json.awk: the one reader of zcc's, zcs's and cyclesoak's -J objects (one
# object on one line), for the scripts: a member is read by its path, so
# that a name used twice (with -P each stream's "bytes" and "sends" beside
# the transfer's) is never taken for another. No script reads a summary's
# text by field number.
#
# json_get(OBJ, PATH): the value at PATH in the JSON text OBJ. PATH names each
# member on the way down, an array's elements by their place from 0, with
# dots between: "result.zerocopy.sends", "streams.1.bytes",
# "turns.comparisons.0.load_points.lo". A number comes as written, a string
# without its quotes (zc writes none with an escaped quote in it); "" for
# null, an object, an array, or no such path.
function json_get(obj, path) {
	json_load(obj)
	return (path in json_v) ? json_v[path] : ""
}
# json_count(OBJ, PATH): how many elements the array at PATH has (0: none).
function json_count(obj, path) {
	json_load(obj)
	return (path in json_n) ? json_n[path] : 0
}
# json_mbs(OBJ): a summary's MB/s, 10^6 bytes a second, from its result.
function json_mbs(obj) {
	return json_get(obj, "result.bytes") / json_get(obj, "result.seconds") / 1e6
}
# json_load(OBJ): every scalar of OBJ into json_v[PATH], and each array's
# length into json_n[PATH], in one pass; the last object read is kept.
function json_load(obj,   n, i, ch, depth, key, arr, j, val, here) {
	if (obj == json_last && json_loaded)
		return
	json_last = obj
	json_loaded = 1
	split("", json_v)
	split("", json_n)
	n = length(obj)
	for (i = 1; i <= n; i++) {
		ch = substr(obj, i, 1)
		if (ch == "{" || ch == "[") {
			depth++
			arr[depth] = ch == "["
			key[depth] = arr[depth] ? -1 : ""
			if (arr[depth] && substr(obj, i + 1, 1) != "]")
				key[depth] = 0
			continue
		}
		if (ch == "}" || ch == "]") {
			if (ch == "]")
				json_n[json_path(key, depth - 1)] = key[depth] + 1
			depth--
			continue
		}
		if (ch == ",") {
			if (arr[depth])
				key[depth]++
			continue
		}
		if (ch == "\"") {
			j = index(substr(obj, i + 1), "\"")
			val = substr(obj, i + 1, j - 1)
			i += j
			if (substr(obj, i + 1, 1) == ":") {
				key[depth] = val
				i++
				continue
			}
		} else if (ch ~ /[-0-9a-z]/) {
			match(substr(obj, i), /^[^,}\]]+/)
			val = substr(obj, i, RLENGTH)
			i += RLENGTH - 1
			if (val == "null")
				continue
		} else {
			continue
		}
		json_v[json_path(key, depth)] = val
	}
}
# json_path(KEY, DEPTH): the path of KEY[1] to KEY[DEPTH], dots between.
function json_path(key, depth,   here, j) {
	here = key[1]
	for (j = 2; j <= depth; j++)
		here = here "." key[j]
	return here
}
