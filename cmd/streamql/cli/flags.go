package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"streamql/internal/editdist"
)

// flagHint is what each flag that takes a value expects, for messages.
var flagHint = map[string]string{
	"format":     "--format FMT, one of table, csv, tsv, json, plain, markdown",
	"side-dir":   "--side-dir DIR",
	"file":       "-f FILE",
	"execute":    "-e 'SQL; SQL'",
	"cpuprofile": "--cpuprofile FILE",
	"memprofile": "--memprofile FILE",
}

// flagError turns an error of fs.Parse into the message a user sees (SPEC 4:
// exit 2): it names the flag as typed, says what is wrong and what to write,
// and ends by suggesting --help. The message has no "error: " prefix and no
// trailing newline.
func flagError(fs *pflag.FlagSet, err error) string {
	const help = "; see 'streamql --help'"
	var notExist *pflag.NotExistError
	var needsValue *pflag.ValueRequiredError
	var invalid *pflag.InvalidValueError
	var syntax *pflag.InvalidSyntaxError
	switch {
	case errors.As(err, &notExist):
		name := notExist.GetSpecifiedName()
		if sh := notExist.GetSpecifiedShortnames(); sh != "" {
			if len(sh) > 1 {
				return fmt.Sprintf("unknown flag -%s (in -%s)%s", name[:1], sh, help)
			}
			return fmt.Sprintf("unknown flag -%s%s", name[:1], help)
		}
		msg := "unknown flag --" + name
		if s := closestFlag(fs, name); s != "" {
			msg += " (did you mean --" + s + "?)"
		}
		return msg + help
	case errors.As(err, &needsValue):
		return valueMissing(needsValue.GetFlag(), "") + help
	case errors.As(err, &invalid):
		f := invalid.GetFlag()
		if f.Value.Type() == "bool" {
			return fmt.Sprintf("flag --%s takes no value or =true/=false, not '%s'%s", f.Name, invalid.GetValue(), help)
		}
		return fmt.Sprintf("flag --%s: invalid value '%s'%s", f.Name, invalid.GetValue(), help)
	case errors.As(err, &syntax):
		return fmt.Sprintf("bad flag syntax %s: flags are -x or --name%s", syntax.GetSpecifiedFlag(), help)
	}
	return err.Error() + help
}

// valueMissing is the message for flag f given without its value; found, when
// not empty, is the flag that stood where the value should be.
func valueMissing(f *pflag.Flag, found string) string {
	name := "--" + f.Name
	if f.Shorthand != "" {
		name = "-" + f.Shorthand + " (--" + f.Name + ")"
	}
	msg := "flag " + name + " needs a value"
	if found != "" {
		msg += ", but " + found + " follows it"
	}
	if h, ok := flagHint[f.Name]; ok {
		msg += ": " + h
	}
	return msg
}

// checkFlagValues reports a flag whose value is itself one of fs's flags
// (`--format --timer`, `-e -f x.sql`): the value was forgotten, and pflag took
// the next flag for it. It returns "" when every value is fine, or the message.
func checkFlagValues(fs *pflag.FlagSet) string {
	msg := ""
	fs.Visit(func(f *pflag.Flag) {
		if msg != "" || f.NoOptDefVal != "" {
			return
		}
		vals := []string{f.Value.String()}
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			vals = sv.GetSlice()
		}
		for _, v := range vals {
			if isFlagSpelling(fs, v) {
				msg = valueMissing(f, v) + "; see 'streamql --help'"
				return
			}
		}
	})
	return msg
}

// isFlagSpelling reports whether arg is written like one of fs's flags: --name,
// --name=value, or -x with x a shorthand.
func isFlagSpelling(fs *pflag.FlagSet, arg string) bool {
	if name, ok := strings.CutPrefix(arg, "--"); ok {
		name, _, _ = strings.Cut(name, "=")
		return name != "" && fs.Lookup(name) != nil
	}
	if sh, ok := strings.CutPrefix(arg, "-"); ok && len(sh) >= 1 {
		return fs.ShorthandLookup(sh[:1]) != nil && (len(sh) == 1 || fs.ShorthandLookup(sh[:1]).NoOptDefVal != "" || sh[1] == '=')
	}
	return false
}

// closestFlag returns the long flag of fs nearest to name (at most two edits,
// or name a prefix of it), or "".
func closestFlag(fs *pflag.FlagSet, name string) string {
	best, bestD := "", 3
	fs.VisitAll(func(f *pflag.Flag) {
		d := editdist.Distance(name, f.Name)
		if strings.HasPrefix(f.Name, name) && len(name) >= 2 {
			d = min(d, 1)
		}
		if d < bestD {
			best, bestD = f.Name, d
		}
	})
	return best
}

// scriptArg is one -f (a script file's path) or -e/-c (inline SQL) of the
// command line.
type scriptArg struct {
	inline bool
	text   string
}

// scriptFlag is the pflag.Value of -f or of -e: each use appends to one
// list shared by both, so the scripts run in the order the command line
// gives them (psql's rule for -f and -c), not all files before all inline
// SQL. It is a pflag.SliceValue of its own flag's values, for
// checkFlagValues.
type scriptFlag struct {
	all    *[]scriptArg
	inline bool
}

func (f scriptFlag) Set(v string) error {
	*f.all = append(*f.all, scriptArg{inline: f.inline, text: v})
	return nil
}
func (f scriptFlag) Type() string { return "stringArray" }
func (f scriptFlag) String() string {
	if v := f.GetSlice(); len(v) > 0 {
		return "[" + strings.Join(v, ",") + "]"
	}
	return "" // (no default for --help to print)
}

// GetSlice returns the values given to this flag, in order.
func (f scriptFlag) GetSlice() []string {
	var out []string
	for _, a := range *f.all {
		if a.inline == f.inline {
			out = append(out, a.text)
		}
	}
	return out
}
func (f scriptFlag) Append(v string) error { return f.Set(v) }
func (f scriptFlag) Replace(vs []string) error {
	kept := (*f.all)[:0]
	for _, a := range *f.all {
		if a.inline != f.inline {
			kept = append(kept, a)
		}
	}
	*f.all = kept
	for _, v := range vs {
		if err := f.Set(v); err != nil {
			return err
		}
	}
	return nil
}
