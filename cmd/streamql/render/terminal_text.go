package render

// TerminalText returns one line of s as the terminal formats show it (SPEC 4
// Output): each control character (U+0000–U+001F except tab, U+007F,
// U+0080–U+009F), a line feed included, as \xNN; s itself when nothing needs it.
// For messages that quote data, such as the diffs of `streamql test`.
func TerminalText(s string) string {
	return terminalString(s, false)
}
