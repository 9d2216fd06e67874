// Package parser turns streamql text into statements: a tokenizer and statement
// splitter of its own (with byte offsets, lines and columns), and a front-end that
// peels off the streaming clauses (CREATE STREAM, WATERMARK FOR, WITH, INTO SIDE,
// SEMI/ANTI JOIN, RUN, SHOW SIDES, DROP SIDE, ...) and hands the rest to
// github.com/pingcap/tidb/pkg/parser (DESIGN: parser). It also owns Error, the
// positioned error every later stage returns, and its rendering with a caret.
package parser
