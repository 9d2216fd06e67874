package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const createOrders = "CREATE STREAM orders (id BIGINT, product VARCHAR) WITH ('connector' = 'values');"

// TestREPLCompletionKeys drives readline with the keys a user types: Tab
// after DESCRIBE, Ctrl-C in the completion menu, a ',' after a completed name.
func TestREPLCompletionKeys(t *testing.T) {
	home := t.TempDir()
	hist := filepath.Join(home, historyName)
	h := startREPL(t, hist)
	h.line(createSensors)
	h.line(createOrders)

	// after DESCRIBE, Tab completes a stream name
	h.send("DESCRIBE sen\t")
	h.waitFor("sensors ")
	if out := h.line(";"); !strings.Contains(out, "temperature") {
		t.Fatalf("DESCRIBE with a completed name printed:\n%s", out)
	}
	// and lists the streams on an empty word
	h.send("DESCRIBE \t")
	menu := h.waitFor("sensors")
	if !strings.Contains(menu, "orders") {
		t.Fatalf("Tab after DESCRIBE listed:\n%s", menu)
	}
	// Ctrl-C in the menu drops the line: what follows is a new statement
	h.send("\x03")
	h.waitFor("^C")
	h.waitPrompt()
	if out := h.line("SHOW STREAMS;"); strings.Contains(out, "error") || !strings.Contains(out, "orders") {
		t.Fatalf("after Ctrl-C in the completion menu, SHOW STREAMS printed:\n%s", out)
	}
	// and in the menu's selection (Tab Tab)
	h.send("SELECT * FROM \t\t")
	h.waitFor("sensors")
	h.send("\x03")
	h.waitFor("^C")
	h.waitPrompt()
	if out := h.line("SHOW STREAMS;"); strings.Contains(out, "error") {
		t.Fatalf("after Ctrl-C in the completion selection, SHOW STREAMS printed:\n%s", out)
	}

	// the space a completion adds goes when ',' (or ')') follows
	h.send("SELECT devi\t")
	h.waitFor("deviceNo ")
	h.send(", temp\t")
	h.waitFor("temperature ")
	h.send("FROM sensors WHERE temperature > (ts\t")
	h.waitFor("ts ")
	if out := h.line(") LIMIT 1;"); strings.Contains(out, "error") {
		t.Fatalf("the completed statement printed:\n%s", out)
	}
	b, err := os.ReadFile(hist)
	if err != nil {
		t.Fatal(err)
	}
	want := "SELECT deviceNo, temperature FROM sensors WHERE temperature > (ts) LIMIT 1;\n"
	if !strings.HasSuffix(string(b), want) {
		t.Errorf("history file:\n%s\nwant it to end with:\n%s", b, want)
	}
	// a space typed by hand stays
	h.line("SELECT deviceNo , ts FROM sensors LIMIT 1;")
	if b, _ := os.ReadFile(hist); !strings.HasSuffix(string(b), "SELECT deviceNo , ts FROM sensors LIMIT 1;\n") {
		t.Errorf("a typed space was dropped:\n%s", b)
	}

	// Ctrl-D ends the REPL without echoing ^D
	h.mark = len(h.all.String())
	if code := h.exit("\x04"); code != 0 {
		t.Errorf("Ctrl-D: status %d", code)
	}
	if rest := h.all.String()[h.mark:]; strings.Contains(rest, "^D") {
		t.Errorf("Ctrl-D printed %q", rest)
	}
}

// TestREPLMultiLineStringHistory: a statement whose string spans lines is one
// history entry, in memory and in the file, and runs again when recalled.
func TestREPLMultiLineStringHistory(t *testing.T) {
	home := t.TempDir()
	hist := filepath.Join(home, historyName)
	h := startREPL(t, hist)
	h.line(".format csv")
	h.line(createOrders)
	h.line("INSERT INTO orders VALUES (1, 'a")
	h.line(`b\c');`)
	want := "--streamql-lines INSERT INTO orders VALUES (1, 'a\\nb\\\\c');\n"
	if b, _ := os.ReadFile(hist); !strings.HasSuffix(string(b), want) {
		t.Fatalf("history file:\n%s\nwant it to end with:\n%s", b, want)
	}
	h.line("SELECT COUNT(*) AS n FROM orders;")
	h.exit("\x04")

	// a new REPL reads the entry back whole: Up Up recalls it, Enter runs it
	h2 := startREPL(t, hist)
	h2.line(".format csv")
	h2.line(createOrders)
	h2.send("\x1b[A\x1b[A\x1b[A\x1b[A") // past CREATE, .format and SELECT
	h2.waitFor(`b\c');`)
	h2.send("\nSELECT product FROM orders;\n")
	h2.waitFor("product\n\"a\nb\\c\"\n") // the recalled entry inserted the row
}

// TestHistoryEncode: entries with line breaks survive the file, and plain ones
// are written as they are.
func TestHistoryEncode(t *testing.T) {
	for _, e := range []string{"SELECT 1;", `SELECT 'a\nb';`, "SELECT 'a\nb\\n\r\nc\\';", "x\\"} {
		enc := historyEncode(e)
		if strings.ContainsAny(enc, "\r\n") {
			t.Errorf("%q encodes to %q, more than one line", e, enc)
		}
		if !strings.ContainsAny(e, "\r\n") && enc != e {
			t.Errorf("%q encodes to %q", e, enc)
		}
		if got := historyDecode(enc); got != e {
			t.Errorf("%q → %q → %q", e, enc, got)
		}
	}
}

// TestREPLDotAfterComment: a dot command after lines of comments is a command
// (as in scripts); after the start of a statement it is part of the statement.
func TestREPLDotAfterComment(t *testing.T) {
	h := startREPL(t, "")
	h.line(createOrders)
	h.line("INSERT INTO orders VALUES (1, 'a');")
	h.line("-- a note")
	h.line(".format csv")
	if out := h.line("SELECT id FROM orders;"); !strings.Contains(out, "id\n1\n") {
		t.Fatalf(".format csv after a comment line:\n%s", out)
	}
	h.line("SELECT id")
	h.line(".format json")
	if out := h.line("FROM orders;"); !strings.Contains(out, "error") {
		t.Fatalf("a dot line inside a statement printed:\n%s", out)
	}
	if out := h.line("SELECT id FROM orders;"); !strings.Contains(out, "id\n1\n") {
		t.Fatalf("the format changed from inside a statement:\n%s", out)
	}
}
