package streamql.flinkexport;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.StatementSet;
import org.apache.flink.table.api.TableEnvironment;

/**
 * Runs a Flink SQL script written by {@code streamql export --flink} in a local
 * MiniCluster (a TableEnvironment), the way the SQL client would: SET, CREATE
 * TABLE / VIEW, and one EXECUTE STATEMENT SET, waited for.
 *
 * <p>Two substitutions, so that outputs can be compared as files, nothing else:
 * each {@code 'connector' = 'print'} table becomes a filesystem csv table at
 * OUT/&lt;print-identifier&gt;-&lt;table&gt; (print writes "+I[...]" lines to
 * stdout), and each relative {@code 'path'} is resolved against BASE (the
 * streamql script's directory, as streamql resolves it).
 *
 * <p>Usage: RunScript SCRIPT.flink.sql BASE OUT [SCRIPT BASE OUT ...]: each
 * script runs in its own TableEnvironment (one JVM for all, to spare the
 * machine); OUT/status.txt gets "ok" or the error.
 */
public final class RunScript {
    private static final Pattern PRINT = Pattern.compile(
            "CREATE TABLE `((?:[^`]|``)+)` \\(([^;]*?)\\) WITH \\('connector' = 'print', 'print-identifier' = '((?:[^']|'')*)'\\);",
            Pattern.DOTALL);
    private static final Pattern PATH = Pattern.compile("'path' = '((?:[^']|'')*)'");

    public static void main(String[] args) throws Exception {
        int failed = 0;
        for (int i = 0; i + 2 < args.length; i += 3) {
            Path out = Path.of(args[i + 2]).toAbsolutePath();
            Files.createDirectories(out);
            String status = "ok";
            try {
                run(Files.readString(Path.of(args[i])), Path.of(args[i + 1]).toAbsolutePath(), out);
            } catch (Throwable t) {
                failed++;
                Throwable root = t;
                StringBuilder why = new StringBuilder(t.toString());
                while (root.getCause() != null && root.getCause() != root) {
                    root = root.getCause();
                    why.append("\ncaused by: ").append(root);
                }
                status = "failed: " + why;
            }
            Files.writeString(out.resolve("status.txt"), status + "\n");
            System.out.println(args[i] + ": " + status.lines().findFirst().orElse(""));
        }
        System.exit(failed == 0 ? 0 : 1);
    }

    /** Runs one exported script with its relative paths under base, print tables under out. */
    static void run(String script, Path base, Path out) throws Exception {
        Matcher m = PATH.matcher(script);
        StringBuilder sb = new StringBuilder();
        while (m.find()) {
            String p = m.group(1).replace("''", "'");
            if (!Path.of(p).isAbsolute()) {
                p = base.resolve(p).toString();
            }
            m.appendReplacement(sb, Matcher.quoteReplacement("'path' = '" + p.replace("'", "''") + "'"));
        }
        m.appendTail(sb);
        script = sb.toString();
        m = PRINT.matcher(script);
        sb = new StringBuilder();
        while (m.find()) {
            String table = m.group(1).replace("``", "`");
            String dir = out.resolve("table-" + table).toString();
            m.appendReplacement(sb, Matcher.quoteReplacement("CREATE TABLE `" + m.group(1) + "` (" + m.group(2)
                    + ") WITH ('connector' = 'filesystem', 'path' = '" + dir.replace("'", "''") + "', 'format' = 'csv');"));
        }
        m.appendTail(sb);
        script = sb.toString();

        Configuration conf = new Configuration();
        conf.setString("parallelism.default", "2");
        conf.setString("taskmanager.memory.process.size", "1024m");
        conf.setString("execution.checkpointing.interval", "500ms");
        // a failing job fails the script (with checkpoints on, Flink's default
        // would restart a streaming job forever, e.g. on a malformed row)
        conf.setString("restart-strategy.type", "none");
        // the SQL client applies SET 'execution.runtime-mode' before it plans; a
        // TableEnvironment takes it only when it is made
        Matcher mode = Pattern.compile("SET 'execution.runtime-mode' = '([a-z]+)'").matcher(script);
        if (mode.find()) {
            conf.setString("execution.runtime-mode", mode.group(1));
        }
        TableEnvironment env = TableEnvironment.create(EnvironmentSettings.newInstance().withConfiguration(conf).build());
        StatementSet set = null;
        for (String st : statements(script)) {
            String s = st.strip();
            String u = s.toUpperCase();
            if (u.startsWith("SET 'EXECUTION.RUNTIME-MODE'")) {
                continue; // applied above
            } else if (u.startsWith("SET ")) {
                Matcher kv = Pattern.compile("SET '([^']*)' = '([^']*)'").matcher(s);
                if (!kv.find()) {
                    throw new IllegalArgumentException("bad SET: " + s);
                }
                env.getConfig().getConfiguration().setString(kv.group(1), kv.group(2));
            } else if (u.startsWith("EXECUTE STATEMENT SET")) {
                set = env.createStatementSet();
                String body = s.substring(s.indexOf("BEGIN") + 5).strip();
                for (String ins : statements(body)) {
                    if (!ins.isBlank() && !ins.strip().equals("END")) {
                        set.addInsertSql(ins.strip());
                    }
                }
            } else if (u.equals("END")) {
                // the statement set's end
            } else if (!s.isEmpty()) {
                env.executeSql(s);
            }
        }
        if (set != null) {
            set.execute().await();
        }
    }

    /** Splits a script at the ';' that end lines, outside quotes and comments. */
    static List<String> statements(String script) {
        List<String> out = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        for (String line : script.split("\n", -1)) {
            if (line.strip().startsWith("--")) {
                continue;
            }
            cur.append(line).append('\n');
            if (line.stripTrailing().endsWith(";") && balanced(cur)) {
                String s = cur.toString().strip();
                out.add(s.substring(0, s.length() - 1));
                cur.setLength(0);
                if (s.toUpperCase().startsWith("EXECUTE STATEMENT SET") && !s.toUpperCase().endsWith("END;")) {
                    // keep reading until END;
                    cur.append(s, 0, s.length()).append('\n');
                    out.remove(out.size() - 1);
                }
            }
        }
        if (!cur.toString().isBlank()) {
            out.add(cur.toString().strip());
        }
        return out;
    }

    private static boolean balanced(CharSequence s) {
        boolean q = false, b = false;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\'' && !b) {
                q = !q;
            } else if (c == '`' && !q) {
                b = !b;
            }
        }
        return !q && !b;
    }
}
