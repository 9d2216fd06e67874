package streamql.nexmark;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.CloseableIterator;

/**
 * Runs Nexmark's reference queries on Apache Flink SQL (a local MiniCluster, parallelism 1)
 * over the events streamql wrote to json files, applies each query's changelog to get its
 * final table, and writes that table as csv for bench/nexmark/compare-flink.
 *
 * <p>Usage: Compare DATA_DIR QUERY_DIR OUT_DIR q0 q1 ... DATA_DIR holds person.json,
 * auction.json and bid.json (json lines, times as 'yyyy-MM-dd HH:mm:ss.SSS'); QUERY_DIR
 * holds qN.sql, the query's SELECT (Nexmark's text without its sink table, with the
 * CASTs the harness documents); OUT_DIR gets qN.csv: a header line, then the final rows
 * (a row inserted n times more than retracted appears n times; an upsert changelog,
 * +U without -U, is applied by the query's key in UPSERT_KEYS), each value printed as
 * streamql prints it (DOUBLE as Java's Double.toString, TIMESTAMP(3) with milliseconds).
 * A query that fails writes qN.err with the error and the next query runs.
 */
public final class Compare {
    private static final DateTimeFormatter TS = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS");

    public static void main(String[] args) throws Exception {
        if (args.length < 4) {
            System.err.println("usage: Compare DATA_DIR QUERY_DIR OUT_DIR q0 [q1 ...]");
            System.exit(2);
        }
        Path data = Path.of(args[0]).toAbsolutePath();
        Path queries = Path.of(args[1]);
        Path out = Path.of(args[2]);
        Files.createDirectories(out);
        EnvironmentSettings settings = settings();
        for (int i = 3; i < args.length; i++) {
            String q = args[i];
            long t0 = System.nanoTime();
            try {
                TableEnvironment env = TableEnvironment.create(settings);
                for (String ddl : ddl(data)) {
                    env.executeSql(ddl);
                }
                List<String> stmts = statements(query(queries, q));
                for (int s = 0; s < stmts.size() - 1; s++) {
                    env.executeSql(stmts.get(s)); // CREATE VIEW, CREATE TABLE side input
                }
                int rows = run(env, q, stmts.get(stmts.size() - 1), out.resolve(q + ".csv"));
                System.err.printf("flink %s: %d final rows in %.1f s%n", q, rows, (System.nanoTime() - t0) / 1e9);
            } catch (Exception e) {
                Files.writeString(out.resolve(q + ".err"), String.valueOf(e) + "\n" + rootCause(e) + "\n");
                System.err.printf("flink %s: failed: %s%n", q, rootCause(e));
            }
        }
        System.exit(0); // the MiniCluster's threads
    }

    /**
     * Streaming mode on a local MiniCluster kept small (the machine is shared):
     * parallelism 1, one slot, 64 MiB managed and 32 MiB network memory.
     */
    static EnvironmentSettings settings() {
        Map<String, String> conf = new HashMap<>();
        conf.put("parallelism.default", "1");
        conf.put("table.exec.resource.default-parallelism", "1");
        conf.put("taskmanager.memory.managed.size", "64m");
        conf.put("taskmanager.memory.network.min", "32m");
        conf.put("taskmanager.memory.network.max", "32m");
        conf.put("taskmanager.numberOfTaskSlots", "1");
        return EnvironmentSettings.newInstance()
                .inStreamingMode()
                .withConfiguration(Configuration.fromMap(conf))
                .build();
    }

    private static String rootCause(Throwable e) {
        while (e.getCause() != null && e.getCause() != e) {
            e = e.getCause();
        }
        return e.toString();
    }

    /**
     * The text of QUERY_DIR/q.sql, with ${SIDE_INPUT} replaced by the absolute path of
     * queries/nexmark/side_input.csv (QUERY_DIR is bench/nexmark/flink/queries).
     */
    static String query(Path queries, String q) throws IOException {
        String sql = Files.readString(queries.resolve(q + ".sql"), StandardCharsets.UTF_8);
        Path side = queries.toAbsolutePath().resolve("../../../../queries/nexmark/side_input.csv").normalize();
        return sql.replace("${SIDE_INPUT}", side.toString());
    }

    /** The statements of a script, split at ';' that end a line (the queries hold no other). */
    static List<String> statements(String sql) {
        List<String> out = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        for (String line : sql.split("\n")) {
            String t = line.strip();
            if (t.startsWith("--") || t.isEmpty()) {
                continue;
            }
            cur.append(line).append('\n');
            if (t.endsWith(";")) {
                String s = cur.toString().strip();
                out.add(s.substring(0, s.length() - 1));
                cur.setLength(0);
            }
        }
        if (!cur.toString().isBlank()) {
            out.add(cur.toString().strip());
        }
        return out;
    }

    /** Nexmark's three tables over the json files, with Nexmark's watermark. */
    static List<String> ddl(Path data) {
        String wm = "WATERMARK FOR `dateTime` AS `dateTime` - INTERVAL '4' SECOND";
        String with = "WITH ('connector' = 'filesystem', 'format' = 'json', 'json.timestamp-format.standard' = 'SQL', 'path' = '";
        return List.of(
                "CREATE TABLE person (id BIGINT, name STRING, emailAddress STRING, creditCard STRING, city STRING, "
                        + "state STRING, `dateTime` TIMESTAMP(3), extra STRING, " + wm + ") "
                        + with + data.resolve("person.json") + "')",
                "CREATE TABLE auction (id BIGINT, itemName STRING, description STRING, initialBid BIGINT, "
                        + "reserve BIGINT, `dateTime` TIMESTAMP(3), expires TIMESTAMP(3), seller BIGINT, category BIGINT, "
                        + "extra STRING, " + wm + ") " + with + data.resolve("auction.json") + "')",
                "CREATE TABLE bid (auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, url STRING, "
                        + "`dateTime` TIMESTAMP(3), extra STRING, " + wm + ") " + with + data.resolve("bid.json") + "')");
    }

    /**
     * The upsert key (column indexes of the query's output) of the queries whose final
     * result Flink sends to collect() as an upsert changelog: +I and +U keyed by it, with
     * no -U before a +U (q9: Top-1 per auction, keyed by A.id).
     */
    static final Map<String, int[]> UPSERT_KEYS = Map.of("q9", new int[] {0});

    /**
     * Runs query q, applies its changelog, writes the final table; returns its row count.
     * A changelog with +U and no -U is an upsert changelog: applied by UPSERT_KEYS (a +U
     * or +I replaces the row of its key, -D deletes it); without a key for q it fails
     * rather than give a wrong table.
     */
    private static int run(TableEnvironment env, String q, String query, Path file) throws Exception {
        TableResult result = env.executeSql(query);
        List<String> names = result.getResolvedSchema().getColumnNames();
        List<Row> log = new ArrayList<>();
        Map<RowKind, Integer> kinds = new TreeMap<>();
        try (CloseableIterator<Row> it = result.collect()) {
            while (it.hasNext()) {
                Row r = it.next();
                kinds.merge(r.getKind(), 1, Integer::sum);
                log.add(r);
            }
        }
        System.err.printf("flink %s changelog: %s%n", q, kinds);
        boolean upsert = kinds.containsKey(RowKind.UPDATE_AFTER) && !kinds.containsKey(RowKind.UPDATE_BEFORE);
        // the final table sorted by line (the harness sorts too): line -> count
        Map<String, Integer> table = new TreeMap<>();
        if (upsert) {
            int[] key = UPSERT_KEYS.get(q);
            if (key == null) {
                throw new IOException(q + ": Flink gave an upsert changelog (+U without -U) and Compare.UPSERT_KEYS has no key for it");
            }
            Map<String, String> byKey = new HashMap<>();
            for (Row r : log) {
                StringBuilder k = new StringBuilder();
                for (int c : key) {
                    k.append(csvField(value(r.getField(c)))).append('\u0000');
                }
                if (r.getKind() == RowKind.DELETE || r.getKind() == RowKind.UPDATE_BEFORE) {
                    byKey.remove(k.toString());
                } else {
                    byKey.put(k.toString(), csvLine(r));
                }
            }
            for (String line : byKey.values()) {
                table.merge(line, 1, Integer::sum);
            }
        } else {
            for (Row r : log) {
                RowKind k = r.getKind();
                String line = csvLine(r);
                int d = (k == RowKind.INSERT || k == RowKind.UPDATE_AFTER) ? 1 : -1;
                table.merge(line, d, Integer::sum);
                if (table.get(line) == 0) {
                    table.remove(line);
                }
            }
        }
        int n = 0;
        try (PrintWriter w = new PrintWriter(Files.newBufferedWriter(file, StandardCharsets.UTF_8))) {
            w.print(String.join(",", names) + "\n");
            for (Map.Entry<String, Integer> e : table.entrySet()) {
                if (e.getValue() < 0) {
                    throw new IOException("row retracted more often than inserted: " + e.getKey());
                }
                for (int i = 0; i < e.getValue(); i++) {
                    w.print(e.getKey() + "\n");
                    n++;
                }
            }
        }
        return n;
    }

    private static String csvLine(Row r) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < r.getArity(); i++) {
            if (i > 0) {
                b.append(',');
            }
            b.append(csvField(value(r.getField(i))));
        }
        return b.toString();
    }

    /** A value as streamql prints it (SPEC 4): NULL empty, DOUBLE as Double.toString. */
    private static String value(Object v) {
        if (v == null) {
            return "";
        }
        if (v instanceof LocalDateTime t) {
            return t.format(TS);
        }
        if (v instanceof java.math.BigDecimal d) {
            return d.toPlainString();
        }
        return v.toString();
    }

    /** RFC 4180 quoting, as streamql's csv output does. */
    private static String csvField(String s) {
        if (s.indexOf(',') < 0 && s.indexOf('"') < 0 && s.indexOf('\n') < 0 && s.indexOf('\r') < 0) {
            return s;
        }
        return "\"" + s.replace("\"", "\"\"") + "\"";
    }
}
