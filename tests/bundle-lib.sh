# tests/bundle-lib.sh - sourced by tests that need a fixture's evidence as the collector leaves it.
#
# pack_bundles EV RUN JOB: the folder EV's files packed into one node bundle per node (RUN/nodes/
# NODE.tar.zst, postmortem.bundle/1, each member's source the one `diagnose --inputs` reads it
# as, its checksum and size), RUN/arrived/NODE and RUN/expected written; the job's own output
# goes with the first node (the batch host); sacct.txt is left out (the finalizer asks Slurm).
# Prints the nodes, one a line.  Needs PM (the command), jq, tar with zstd, sha256sum.
# HOSTS (a jq definition): job.nodes, a host list, as its names, sorted.
HOSTS='def hosts: if type == "array" then . else [scan("[^,\\[]+(?:\\[[^\\]]*\\])?")] | map(if test("\\[") then (capture("^(?<p>[^\\[]*)\\[(?<r>[^\\]]*)\\]$") as $c | [$c.r | split(",")[] | if test("-") then (split("-") as $ab | ($ab[0] | length) as $w | range($ab[0] | tonumber; ($ab[1] | tonumber) + 1) | tostring | ((("0" * ($w - length)) // "") + .)) else . end] | map($c.p + .)) else [.] end) | flatten end | unique; '

pack_bundles() {
	local ev=$1 run=$2 job=$3 t nodes first nodelist n b c rel src name
	local -a entries
	t=$(mktemp -d "${TMPDIR:-/tmp}/pmpack.XXXXXX")
	"$PM" diagnose --json "$ev" >"$t/direct.json" || [ -s "$t/direct.json" ]
	"$PM" diagnose --inputs "$ev" >"$t/inputs.json"
	nodes=$(jq -r -s "$HOSTS"'[(.[0].job.nodes | hosts[]), (.[1][] | .node // empty)] | unique | .[]' \
		"$t/direct.json" "$t/inputs.json")
	first=$(jq -r -s "$HOSTS"'(.[0].job.nodes | hosts)[0] // ([.[1][] | .node // empty][0])' \
		"$t/direct.json" "$t/inputs.json")
	nodelist=$(echo $nodes | tr ' ' ',')
	mkdir -p "$run/nodes" "$run/arrived"
	for n in $nodes; do
		b=$t/bundle.$n
		mkdir -p "$b"
		jq -c --arg n "$n" --arg first "$first" '.[] | select(.file != null)
			| select(.file != "sacct.txt") | select((.node // $first) == $n)' \
			"$t/inputs.json" >"$b/files"
		entries=()
		while read -r c; do
			rel=$(jq -r .file <<<"$c")
			src=$(jq -r .source <<<"$c")
			name=sources/$src/${rel//\//_}
			mkdir -p "$b/$(dirname "$name")"
			cp "$ev/$rel" "$b/$name"
			entries+=("$(jq -n --arg p "$name" --arg s "$src" --arg n "$n" \
				--arg sha "$(sha256sum "$b/$name" | cut -d' ' -f1)" \
				--argjson bytes "$(stat -c %s "$b/$name")" \
				'{path: $p, source: $s, node: $n, rank: null, observed_time:
				  "2026-12-01T00:00:00Z", bytes: $bytes, sha256: $sha, status: "ok",
				  reason: ""}')")
		done <"$b/files"
		printf '%s\n' "${entries[@]}" | jq -s --arg n "$n" --arg job "$job" --arg nl "$nodelist" \
			'{schema: "postmortem.bundle/1", cluster: "lab", job: $job, restart: 0, node: $n,
			  nodelist: $nl, uid: 1000, collected: {deadline_hit: false},
			  files: map(select(. != null)), coverage: []}' >"$b/manifest.json"
		rm "$b/files"
		(cd "$b" && find sources -type f 2>/dev/null | sort |
			tar --zstd -cf "$run/nodes/$n.tar.zst" --format=posix manifest.json -T -)
		: >"$run/arrived/$n"
	done
	printf '%s\n' $nodes >"$run/expected"
	rm -rf "$t"
	printf '%s\n' $nodes
}
