// Package export writes a streamql script as a Flink 2.x SQL script (SPEC 4,
// "Taking a script to a cluster"; issue 27): `streamql export --flink`.
//
// It owns the translation: a CREATE TABLE per stream with Flink's connector and
// format options (file -> filesystem, kafka, upsert-kafka, datagen; a file's
// 'path' absolute, resolved from its script's folder as the engine reads it,
// since Flink resolves a relative one from its own working directory), WATERMARK
// clauses, a print (or --side-dir filesystem) table per output that has no sink,
// and one EXECUTE STATEMENT SET with an INSERT INTO per output, first-match
// routing (SPEC 2.1) turned into predicates: branch k gets
// (p_k) IS TRUE AND (p_1) IS NOT TRUE AND …, the main query its own WHERE and
// every side branch's (p_j) IS NOT TRUE. What Flink SQL cannot express the same
// way is a Difference, listed in a comment block at the top of the output with
// the script line it comes from (Options.Strict turns them into an error).
//
// How it works: the scripts run through an engine session (internal/session)
// whose frontend records each job instead of running it, so the catalog, the
// pending side branches, RUN and the end-of-script jobs are exactly the
// engine's (which branches share a job, in which order). A file read by its
// quoted name (FROM 'x.csv', SPEC 1), in a query or in any view, WITH name or
// subquery, is a table of its own named by the path, declared once with its
// inferred columns (the session keeps its stream: session.Session.KeepFiles).
// Each branch is then
// printed from its parsed statement (the TiDB AST the parser gives, with its
// Casts, Joins and Window annotations), not from its source text: printing
// from the AST round-trips reliably because every operator is printed fully
// parenthesised (no precedence differences between MySQL's and Calcite's
// grammars can change a meaning), every name is back-quoted (`high-tmp`,
// `设备`, reserved words), literals are printed by their kind (a decimal
// literal, a DOUBLE in SPEC 2, becomes 1.5E0, a DOUBLE in Calcite), and the
// operators whose meaning differs are rewritten where the node is known (`/`
// gives DOUBLE and NULL on zero, DIV, `%`, IF, CONCAT of numbers, CAST's NULL on
// failure as TRY_CAST, AVG of BIGINT as DOUBLE, INTERVAL arithmetic on BIGINT
// event time). The source text would keep MySQL's precedence and spellings, and
// re-quoting it token by token cannot move a SEMI JOIN into an EXISTS.
// Subqueries, UNION ALL, WITH names and views (SPEC 2.6) print the same way,
// a WITH name or a view inline as the subquery it stands for, but for one a
// window TVF reads: that one becomes a CREATE TEMPORARY VIEW the TVF reads as
// TABLE name (Flink's form of a window over a view). Only a query the printer
// cannot print goes out as written, and that is a difference. A window
// aggregate's late rows are a difference wherever it stands: in the query or
// in any relation it reads.
// A query's ORDER BY [LIMIT] (SPEC 2.9) is placed last, once Flink's runtime
// mode is known: batch mode sorts any keys, streaming mode only a time
// attribute ascending or with a LIMIT (a Top-N); the rest is a difference.
//
// A BIGINT event-time column (epoch ms) cannot be a Flink time attribute: the
// exported table gets a computed column <col>_rowtime AS TO_TIMESTAMP_LTZ(col,
// 3) that carries the WATERMARK, DESCRIPTOR and CURRENT_WATERMARK, and window
// columns are turned back into epoch ms in select lists (the exported script
// sets 'table.local-time-zone' to UTC for that).
//
// Like internal/session, it imports the engine (catalog, planner, parser) and
// never anything under cmd/ nor the root package streamql; unlike the engine,
// it names connectors (it maps each to Flink's), which only executor/connector
// does otherwise.
package export
