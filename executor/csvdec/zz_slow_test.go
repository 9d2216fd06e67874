package csvdec

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestZZSlow(t *testing.T) {
	dir := os.Getenv("CORPUS")
	if dir == "" {
		t.Skip()
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	for _, fn := range files {
		b, _ := os.ReadFile(fn)
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		data, _ := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(lines[1], "[]byte("), ")"))
		p := func(s string) uint8 {
			s = s[strings.IndexByte(s, '(')+1 : len(s)-1]
			if strings.HasPrefix(s, "'") {
				u, _ := strconv.Unquote(s)
				return u[0]
			}
			n, _ := strconv.Atoi(s)
			return uint8(n)
		}
		a, c := p(lines[2]), p(lines[3])
		st := time.Now()
		differential(t, []byte(data), a)
		properties(t, []byte(data), a, c)
		if d := time.Since(st); d > 50*time.Millisecond {
			t.Logf("%s: %v len %d", filepath.Base(fn), d, len(data))
		}
	}
}
