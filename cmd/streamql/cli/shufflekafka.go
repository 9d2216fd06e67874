package cli

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"streamql/catalog"
	"streamql/internal/session"
)

// groupSuffixEnv names the environment variable that `streamql test` sets for
// the processes it starts (the killed and restarted runs of --shuffle): the
// suffix of every consumer group of the script (renameGroups).
const groupSuffixEnv = "STREAMQL_TEST_GROUP_SUFFIX"

// groupOption is the Kafka source option whose committed offsets are a job's
// checkpoint (SPEC 2.5).
const groupOption = "properties.group.id"

// groupSuffix returns the suffix every stream's consumer group gets in a run
// (renameGroups): sfx, a test case's run's (runHooks.groupSuffix: each run of
// a test case reads its Kafka topics as a new job, SPEC 2.5: a group's
// committed offsets are its checkpoint, so a case runs again with the same
// result), else the environment variable groupSuffixEnv's (a process
// `streamql test` started); "" when none.
func groupSuffix(sfx string) string {
	if sfx != "" {
		return sfx
	}
	return os.Getenv(groupSuffixEnv)
}

// newGroupSuffix returns a fresh suffix for one run's consumer groups.
func newGroupSuffix() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return "-streamql-test-" + hex.EncodeToString(b[:])
}

// renameGroups appends sfx to the consumer group of every stream of cat that
// has one, once (a stream already renamed keeps its name).
func renameGroups(cat *catalog.Catalog, sfx string) {
	if sfx == "" {
		return
	}
	for _, st := range cat.Streams() {
		if k := st.Kafka(); k != nil && k.GroupID != "" && !strings.HasSuffix(k.GroupID, sfx) {
			_ = st.SetOption(groupOption, k.GroupID+sfx) // (its options were checked)
		}
	}
}

// readsKafka reports whether job reads a Kafka stream (its stream, an input
// of its join of two streams, or a join's build side): one that declares
// catalog.CapGroups (its connector takes a consumer group), whose
// committed offsets a restarted process resumes from (SPEC 2.5). (A
// capability, not the connector's name: executor/connector's registry test.)
func readsKafka(job *session.Job) bool {
	kafka := func(st *catalog.Stream) bool {
		return st != nil && st.Caps().Has(catalog.CapGroups)
	}
	return slices.ContainsFunc(job.Reads, kafka)
}

// killRestart is the --shuffle run of a case whose streams are Kafka (SPEC 4,
// "Finding out why"): the streamql binary runs the case as a process of its
// own, is killed (SIGKILL) once its stdout holds a number of lines the seed
// picks (from 1 to the first run's less one), and runs again to its
// end with the same consumer groups, so it resumes from what the killed
// process committed (SPEC 2.5: offsets of rows whose outputs are written).
// Together the two processes' outputs must hold each line of the first run:
// none lost, none that the first run has not, and no more copies than the
// first run's in each process (a line the killed process wrote whose offset it
// had not committed yet comes again: at-least-once to files and stdout). The
// restarted process's exit status must be the first run's. It returns the
// problems, and a note saying where the process was killed.
func killRestart(ctx context.Context, c testCase, timeout time.Duration, first caseRun, seed uint64) (problems []string, note string) {
	exe, err := os.Executable()
	if err != nil || strings.HasSuffix(filepath.Base(exe), ".test") {
		return nil, "a Kafka case: killing a process not tried (not run by the streamql binary)"
	}
	total := len(dataLines(first.stdout))
	rng := mrand.New(mrand.NewPCG(seed, 0xc0ffee))
	at := 1
	if total > 2 {
		at = 1 + rng.IntN(total-1)
	}
	sfx := newGroupSuffix()
	killed, lines, p := runChild(ctx, exe, c, timeout, sfx, at)
	if p != "" {
		return []string{"the process to kill: " + p}, ""
	}
	again, _, p := runChild(ctx, exe, c, timeout, sfx, 0)
	if p != "" {
		return []string{"the restarted process: " + p}, ""
	}
	how := fmt.Sprintf("killed after %d of %d lines of stdout and restarted", lines, total)
	if lines < 0 {
		how = fmt.Sprintf("ended before the kill at %d of %d lines of stdout, run again", at, total)
	}
	reproduce := fmt.Sprintf("; reproduce with: streamql test --shuffle 1 --seed %d %s", seed, c.name)
	if again.code != first.code {
		problems = append(problems, fmt.Sprintf("a process %s: exit status %d, first run %d%s\nstderr: %s", how, again.code, first.code, reproduce, lastChars(strings.TrimSpace(again.stderr), 600)))
	}
	ref, k, r := outputsOf(first), outputsOf(killed), outputsOf(again)
	var names []string
	for n := range ref {
		names = append(names, n)
	}
	for n := range r {
		if _, ok := ref[n]; !ok {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		if d := killDiff(ref[n], k[n], r[n]); d != "" {
			problems = append(problems, fmt.Sprintf("%s: a process %s differs from the first run%s\n%s", n, how, reproduce, d))
		}
	}
	if len(problems) > 0 {
		return problems, ""
	}
	return nil, fmt.Sprintf("a process %s (%d lines of stdout) gave the first run's rows", how, len(dataLines(again.stdout)))
}

// outputsOf is a run's outputs by name: main.csv (stdout) and its side files.
func outputsOf(r caseRun) map[string]string {
	m := map[string]string{"main.csv": r.stdout}
	for k, v := range r.sides {
		m[k] = v
	}
	return m
}

// dataLines are the whole lines of text (a last line without its line end,
// which a killed process may leave, is not one).
func dataLines(text string) []string {
	lines := strings.SplitAfter(text, "\n")
	var out []string
	for _, l := range lines {
		if strings.HasSuffix(l, "\n") {
			out = append(out, l)
		}
	}
	return out
}

// killDiff compares one output of the first run (ref) with the killed (k) and
// restarted (r) processes' (see killRestart); "" when they agree, otherwise
// the lines lost, added or repeated too often.
func killDiff(ref, k, r string) string {
	count := func(text string) map[string]int {
		m := map[string]int{}
		for _, l := range dataLines(text) {
			m[l]++
		}
		return m
	}
	cr, ck, cx := count(ref), count(k), count(r)
	var lines []string
	seen := map[string]bool{}
	for _, m := range []map[string]int{cr, ck, cx} {
		for l := range m {
			if seen[l] {
				continue
			}
			seen[l] = true
			line := strings.TrimSuffix(l, "\n")
			switch {
			case ck[l]+cx[l] < cr[l]:
				lines = append(lines, fmt.Sprintf("lost: %s (first run %d, killed %d, restarted %d)", line, cr[l], ck[l], cx[l]))
			case ck[l] > cr[l] || cx[l] > cr[l]:
				lines = append(lines, fmt.Sprintf("extra: %s (first run %d, killed %d, restarted %d)", line, cr[l], ck[l], cx[l]))
			}
		}
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// runChild runs the case as a process of exe with the consumer groups'
// suffix sfx; with killAt > 0 the process kills itself (SIGKILL) once its
// stdout has killAt whole lines (killWriter), and lines is how many it wrote
// (-1 when it ended first). problem is not empty when it could not start or
// did not end within timeout.
func runChild(ctx context.Context, exe string, c testCase, timeout time.Duration, sfx string, killAt int) (run caseRun, lines int, problem string) {
	side, err := os.MkdirTemp("", "streamql-test-")
	if err != nil {
		return run, 0, fmt.Sprintf("cannot make a temporary side dir: %v", err)
	}
	defer os.RemoveAll(side)
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(cctx, exe, "--format", "csv", "--side-dir", side, "-f", filepath.Join(c.dir, "query.sql"))
	cmd.Dir = c.dir
	cmd.Env = append(os.Environ(), groupSuffixEnv+"="+sfx)
	if killAt > 0 {
		cmd.Env = append(cmd.Env, killAfterEnv+"="+strconv.Itoa(killAt))
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	if cctx.Err() != nil && ctx.Err() == nil {
		return run, 0, fmt.Sprintf("timed out after %v (raise it with --timeout)", timeout)
	}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		return run, 0, fmt.Sprintf("cannot run %s: %v", exe, err)
	}
	code, lines := cmd.ProcessState.ExitCode(), -1
	if code == -1 || code == killedExit { // (killed by the signal)
		lines = bytes.Count(out.Bytes(), []byte{'\n'})
	}
	stderrText := strings.NewReplacer(c.dir+string(filepath.Separator), "", side, "<side-dir>").Replace(errb.String())
	run = caseRun{code: code, stdout: out.String(), stderr: stderrText, sides: readSides(side)}
	return run, lines, ""
}

// killAfterEnv names the environment variable with which `streamql test
// --shuffle` tells a process it starts to kill itself (killWriter).
const killAfterEnv = "STREAMQL_TEST_KILL_AFTER_LINES"

// killAfterLines returns the number of stdout lines after which this process
// kills itself (killAfterEnv), 0 when it does not.
func killAfterLines() int {
	n, err := strconv.Atoi(os.Getenv(killAfterEnv))
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// killWriter passes writes on to w until left whole lines have gone through,
// then kills its own process (SIGKILL: no flush, no commit, no cleanup), as a
// crash right after the output's line left would: the kill lands at the same
// line whatever the buffering above it.
type killWriter struct {
	w    io.Writer
	left int
}

// Write implements io.Writer.
func (k *killWriter) Write(p []byte) (int, error) {
	for i, c := range p {
		if c != '\n' {
			continue
		}
		if k.left--; k.left == 0 {
			_, _ = k.w.Write(p[:i+1])
			if f, ok := k.w.(interface{ Flush() error }); ok {
				_ = f.Flush()
			}
			killSelf()
		}
	}
	return k.w.Write(p)
}
