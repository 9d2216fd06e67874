package session

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"streamql/parser"
)

var testFormats = []string{"table", "csv", "json"}

func set(key, value string) *parser.Set {
	return &parser.Set{Option: parser.Option{Key: key, Value: value, KeyPos: 4, ValuePos: 20}}
}

// errAtValue checks that err is a *parser.Error at the value with message msg.
func errAtValue(t *testing.T, what string, err error, msg string) {
	t.Helper()
	var pe *parser.Error
	if !errors.As(err, &pe) {
		t.Fatalf("%s: got %v, want a *parser.Error", what, err)
	}
	if pe.Msg != msg || pe.Offset != 20 {
		t.Errorf("%s: got %q at %d, want %q at the value (20)", what, pe.Msg, pe.Offset, msg)
	}
}

// TestSettingsApply checks the typed values of SET 'format', 'side-dir' and
// 'timer' (SPEC 3), and that a bad value is an error at the value that leaves
// the setting as it was.
func TestSettingsApply(t *testing.T) {
	s := Settings{Format: "table"}
	dir := filepath.Join(t.TempDir(), "a", "b")
	for _, c := range []struct{ key, value string }{{"format", "csv"}, {"side-dir", dir}, {"timer", "ON"}} {
		if known, err := s.Apply(set(c.key, c.value), testFormats); !known || err != nil {
			t.Fatalf("SET '%s' = '%s': known %v, err %v", c.key, c.value, known, err)
		}
	}
	if s != (Settings{Format: "csv", SideDir: dir, Timer: true}) {
		t.Errorf("settings = %+v", s)
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		t.Errorf("SET 'side-dir' did not create %s: %v", dir, err)
	}
	for _, v := range []string{"off", "False"} {
		s.Timer = true
		if _, err := s.Apply(set("timer", v), testFormats); err != nil || s.Timer {
			t.Errorf("SET 'timer' = '%s': timer %v, err %v", v, s.Timer, err)
		}
	}

	_, err := s.Apply(set("format", "CSV"), testFormats)
	errAtValue(t, "format CSV", err, "unknown format 'CSV'; did you mean 'csv'? use one of table, csv, json")
	_, err = s.Apply(set("format", "jsno"), testFormats)
	errAtValue(t, "format jsno", err, "unknown format 'jsno'; did you mean 'json'? use one of table, csv, json")
	_, err = s.Apply(set("format", "yaml"), testFormats)
	errAtValue(t, "format yaml", err, "unknown format 'yaml'; use one of table, csv, json")
	_, err = s.Apply(set("timer", "maybe"), testFormats)
	errAtValue(t, "timer maybe", err, "'timer' takes on or off")
	file := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = s.Apply(set("side-dir", filepath.Join(file, "x")), testFormats)
	var pe *parser.Error
	if !errors.As(err, &pe) || pe.Offset != 20 || len(pe.Msg) < 40 || pe.Msg[:40] != "cannot create the side output directory " {
		t.Errorf("side-dir under a file: got %v", err)
	}
	if s != (Settings{Format: "csv", SideDir: dir, Timer: false}) {
		t.Errorf("a bad value changed the settings: %+v", s)
	}
	if known, err := s.Apply(set("state.max-bytes", "1KiB"), testFormats); known || err != nil {
		t.Errorf("state.max-bytes is the engine's: known %v, err %v", known, err)
	}
}

// TestParseStateMaxBytes checks SET 'state.max-bytes' (SPEC 1: a byte size).
func TestParseStateMaxBytes(t *testing.T) {
	for v, want := range map[string]int64{"2KiB": 2048, "64kb": 64 << 10, "64k": 64 << 10, "64 KB": 64 << 10, "1mb": 1 << 20, "1 mebibytes": 1 << 20, "2g": 2 << 30, "1tb": 1 << 40, "512bytes": 512} {
		n, err := ParseStateMaxBytes(set("state.max-bytes", v))
		if err != nil || n != want {
			t.Errorf("%s: got %d, %v; want %d (Flink's MemorySize units, all powers of 1024)", v, n, err, want)
		}
	}
	_, err := ParseStateMaxBytes(set("state.max-bytes", "lots"))
	var pe *parser.Error
	if !errors.As(err, &pe) || pe.Offset != 20 || pe.Msg[:19] != "'state.max-bytes': " {
		t.Errorf("lots: got %v, want an error at the value naming the key", err)
	}
}

// settingsFront is a Frontend that owns the client keys of SET as the
// command line does (Settings.Apply) and runs no job.
type settingsFront struct{ s Settings }

func (f *settingsFront) Set(st *parser.Set) (bool, error)  { return f.s.Apply(st, testFormats) }
func (f *settingsFront) Result([]string, [][]string) error { return nil }
func (f *settingsFront) RunJob(context.Context, *Job, RunFunc) error {
	return nil
}

// TestUnknownSettingSuggests: SET with a key one or two edits from a known
// one (every key of SettingKeys, misspelt three ways) is an error at the key
// that names the known key ("did you mean"), as an unknown stream option is;
// a key far from all of them lists the keys without a guess.
func TestUnknownSettingSuggests(t *testing.T) {
	s := New(nil, &settingsFront{s: Settings{Format: "table"}})
	for _, key := range strings.Split(SettingKeys, ", ") {
		for _, typo := range []string{key[:len(key)-1], key[1:] + "x", strings.ToUpper(key[:1]) + key[2:]} {
			err := s.set(&parser.Set{Option: parser.Option{Key: typo, Value: "1", KeyPos: 4, ValuePos: 20}})
			var pe *parser.Error
			want := "unknown setting '" + typo + "'; did you mean '" + key + "'? settings: " + SettingKeys
			if !errors.As(err, &pe) || pe.Msg != want || pe.Offset != 4 {
				t.Errorf("SET '%s': got %v, want %q at the key", typo, err, want)
			}
		}
	}
	err := s.set(&parser.Set{Option: parser.Option{Key: "colour", Value: "red", KeyPos: 4}})
	if want := "unknown setting 'colour'; settings: " + SettingKeys; err == nil || err.Error() == "" || !strings.Contains(err.Error(), want) {
		t.Errorf("SET 'colour': got %v, want %q", err, want)
	}
}
