# json.awk: the numbers of a zcc or zcs -J summary (one object on one line),
# by name, for the scripts: no script reads a summary's text by field number.
# json_num(OBJ, KEY): the number named KEY in the JSON text OBJ, "" for null
# or none; the first of that name, so a key that is not unique within OBJ is
# read from json_after(OBJ, MEMBER), the text from MEMBER on.
function json_num(obj, key,   s) {
	if (!match(obj, "\"" key "\":(-?[0-9]+(\\.[0-9]+)?|null)"))
		return ""
	s = substr(obj, RSTART + length(key) + 3, RLENGTH - length(key) - 3)
	return s == "null" ? "" : s
}
# json_str(OBJ, KEY): the string named KEY (the first of that name, with no
# escaped quote in it: zc's names and verdicts), "" for null or none.
function json_str(obj, key) {
	if (!match(obj, "\"" key "\":\"[^\"]*\""))
		return ""
	return substr(obj, RSTART + length(key) + 4, RLENGTH - length(key) - 5)
}
function json_after(obj, member,   i) {
	i = index(obj, "\"" member "\":")
	return i ? substr(obj, i) : ""
}
# json_result(OBJ): the summary's "result" member onwards (zcs intervals
# also have "bytes"); json_mbs(OBJ): its MB/s (10^6 bytes a second).
function json_result(obj) {
	return json_after(obj, "result")
}
function json_mbs(obj,   r) {
	r = json_result(obj)
	return json_num(r, "bytes") / json_num(r, "seconds") / 1e6
}
