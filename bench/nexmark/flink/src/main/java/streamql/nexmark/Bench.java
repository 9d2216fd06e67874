package streamql.nexmark;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.TableDescriptor;
import org.apache.flink.table.api.TableEnvironment;

/**
 * Measures Nexmark queries on Apache Flink SQL for bench/nexmark/run: each query runs on
 * the json events of DATA_DIR into a 'blackhole' table (as Nexmark's own runs), on a local
 * MiniCluster at parallelism 1 (Compare's settings).
 *
 * <p>Usage: Bench DATA_DIR QUERY_DIR EVENTS q0 q1 ... It prints one line per query:
 * {@code qN <events per CPU-second> <wall seconds> <CPU seconds>}, where the CPU time is
 * the JVM's (all its threads: the job, the GC, the JIT) during the job, planning
 * included, and EVENTS the events of the sequence the files hold; and at the end
 * {@code peak-rss-kib <VmHWM>} of the whole JVM. A failed query prints {@code qN failed
 * <error>}.
 */
public final class Bench {
    public static void main(String[] args) throws Exception {
        Path data = Path.of(args[0]).toAbsolutePath();
        Path queries = Path.of(args[1]);
        long events = Long.parseLong(args[2]);
        com.sun.management.OperatingSystemMXBean os =
                (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        for (int i = 3; i < args.length; i++) {
            String q = args[i];
            try {
                TableEnvironment env = TableEnvironment.create(Compare.settings());
                for (String ddl : Compare.ddl(data)) {
                    env.executeSql(ddl);
                }
                List<String> stmts = Compare.statements(Compare.query(queries, q));
                long cpu0 = os.getProcessCpuTime();
                long t0 = System.nanoTime();
                for (int s = 0; s < stmts.size() - 1; s++) {
                    env.executeSql(stmts.get(s));
                }
                Table t = env.sqlQuery(stmts.get(stmts.size() - 1));
                t.executeInsert(TableDescriptor.forConnector("blackhole").build()).await();
                double cpu = (os.getProcessCpuTime() - cpu0) / 1e9;
                double wall = (System.nanoTime() - t0) / 1e9;
                System.out.printf("%s %.0f %.2f %.2f%n", q, events / cpu, wall, cpu);
            } catch (Exception e) {
                System.out.printf("%s failed %s%n", q, String.valueOf(e).replace('\n', ' '));
            }
            System.out.flush();
        }
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("VmHWM:")) {
                System.out.println("peak-rss-kib " + line.replaceAll("[^0-9]", ""));
            }
        }
        System.exit(0);
    }
}
