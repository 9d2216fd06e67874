# Shell functions of compare-flink and run (sourced, not run).

# nexmark_runnable REPO: the queries tests/nexmark_test.go lists as runnable (the entries
# "qN": "" of nexmarkQueries), one per line, in order.
nexmark_runnable() {
	grep -oE '^\s*"q[0-9]+": +"",' "$1/tests/nexmark_test.go" | grep -oE 'q[0-9]+' | sort -V
}

# nexmark_comparable REPO: the runnable queries whose result does not depend on the clock
# (not in nexmarkStructural of tests/nexmark_test.go: q12's processing-time windows).
nexmark_comparable() {
	local skip
	skip=$(grep -E '^var nexmarkStructural' "$1/tests/nexmark_test.go" | grep -oE 'q[0-9]+' | tr '\n' ' ')
	nexmark_runnable "$1" | while read -r q; do
		case " $skip " in *" $q "*) ;; *) echo "$q" ;; esac
	done
}

# nexmark_events REPO WORK N STREAMQL: writes WORK/events.sql (the streams of
# queries/tests/nexmark-events.sql over N events), WORK/files.sql (the same streams read
# from WORK/data/{person,auction,bid}.json) and those json files, with streamql's file
# sink.
nexmark_events() {
	local repo=$1 work=$2 events=$3 sq=$4 t cols
	mkdir -p "$work/data"
	sed "s/'events.num' = '20000'/'events.num' = '$events'/" "$repo/queries/tests/nexmark-events.sql" >"$work/events.sql"
	sed -E "s#WITH \('connector' = 'nexmark', 'table' = '([a-z]+)', 'events.num' = '20000'\)#WITH ('connector' = 'file', 'path' = '$work/data/\1.json', 'format' = 'json')#" \
		"$repo/queries/tests/nexmark-events.sql" >"$work/files.sql"
	{
		echo ".read $work/events.sql"
		for t in person auction bid; do
			cols=$(awk -v t="$t" '$0 ~ "CREATE STREAM "t" \\(" {f=1; next} f && /WATERMARK/ {exit} f {print}' "$work/events.sql" | tr -d '\n' | sed 's/,\s*$//')
			echo "CREATE STREAM ${t}_out ($cols) WITH ('connector' = 'file', 'path' = '$work/data/$t.json', 'format' = 'json');"
			echo "INSERT INTO ${t}_out SELECT * FROM $t;"
		done
	} >"$work/gen.sql"
	"$sq" "$work/gen.sql"
}

# nexmark_flink HERE CLASS ARGS...: builds bench/nexmark/flink (mvn, once per change) and
# runs streamql.nexmark.CLASS with ARGS, Flink's heap at FLINK_HEAP (512m). Maven's
# output goes to stderr: even with -q it writes ANSI resets ("\e[0m\e[0m") to stdout,
# which run's parser read as the start of the first query's line ("\e[0m\e[0mq3 ..."),
# so the first query named got no Flink figure (q3 and q23 in the README's table).
nexmark_flink() {
	local here=$1 class=$2
	shift 2
	(cd "$here/flink" && mvn -q -B compile dependency:build-classpath -Dmdep.outputFile=target/cp.txt) >&2
	java -Xmx"${FLINK_HEAP:-512m}" -XX:+UseSerialGC -cp "$here/flink/target/classes:$(cat "$here/flink/target/cp.txt")" \
		"streamql.nexmark.$class" "$@"
}
