import io.tributary.delta.*;
import io.tributary.online.*;
import java.lang.management.ManagementFactory;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.*;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * bench/online/SyncCost.java: one incremental sync of 5,000 rows of bench/online's shape (random keys among 100k, so
 * nearly every row updates a stored one) into a 100k-row synced table, 20 times after 10 warm-up syncs: the syncing
 * thread's Java CPU and the wall time of each, which includes PostgreSQL's work on the upsert. No Kafka and no HTTP, so
 * it isolates the sync from the rest of bench/online. Needs the machine's PostgreSQL (user postgres) and a packaged
 * build (run from the repository root):
 *   java -cp "target/classes:target/quarkus-app/lib/main/*:target/quarkus-app/lib/boot/*" bench/online/SyncCost.java
 */
public class SyncCost {
  public static void main(String[] a) throws Exception {
    Schema row = new Schema.Parser().parse("""
      {"type":"record","name":"Row","namespace":"io.tributary.row","fields":[
        {"name":"key","type":["null","string"]},
        {"name":"value","type":["null",{"type":"record","name":"V","fields":[{"name":"user_id","type":["null","string"]},{"name":"amount","type":["null","double"]},{"name":"seq","type":["null","long"]}]}]},
        {"name":"stream_record_timestamp","type":{"type":"long","logicalType":"timestamp-micros"}},
        {"name":"record_source","type":"string"},
        {"name":"kafka_topic","type":["null","string"]},
        {"name":"kafka_partition","type":["null","int"]},
        {"name":"kafka_offset","type":["null","long"]}]}""");
    Schema v = row.getField("value").schema().getTypes().get(1);
    String dir = java.nio.file.Files.createTempDirectory("syncmicro").toString();
    Tables tables = Tables.forWarehouse(dir, Optional.empty());
    String location = tables.defaultLocation("c", "s", "bench_ingestion");
    PartitionKey p = new PartitionKey("t", 0);
    DeltaTable table = tables.create(location, row, Map.of(p, 0L));
    PGSimpleDataSource ds = new PGSimpleDataSource(); ds.setUrl("jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres");
    String schema = "syncmicro_" + Long.toHexString(System.nanoTime());
    OnlineStore store = new OnlineStore(ds, schema);
    SyncSpec spec = new SyncSpec("id1", "c.s.bench_online", "bench_online", location, List.of("value.user_id"), "stream_record_timestamp", SyncPolicy.CONTINUOUS);
    store.register(spec);
    TableSync sync = new TableSync(tables, store);
    Random r = new Random(1);
    long[] offset = {0};
    java.util.function.IntFunction<List<GenericRecord>> batch = n -> {
      List<GenericRecord> out = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        int k = n == 100_000 ? i : r.nextInt(100_000);
        GenericRecord val = new GenericData.Record(v); val.put("user_id", "k" + k); val.put("amount", k % 1000 + 0.5); val.put("seq", offset[0] + i);
        GenericRecord g = new GenericData.Record(row); g.put("key", "k" + k); g.put("value", val);
        g.put("stream_record_timestamp", ChronoUnit.MICROS.between(Instant.EPOCH, Instant.now()) + i); g.put("record_source", "stream");
        g.put("kafka_topic", "online-bench"); g.put("kafka_partition", k % 6); g.put("kafka_offset", offset[0] + i); out.add(g);
      }
      return out;
    };
    var mx = ManagementFactory.getThreadMXBean();
    List<long[]> m = new ArrayList<>();
    for (int round = 0; round < 31; round++) {
      int n = round == 0 ? 100_000 : 5_000;
      List<GenericRecord> rows = batch.apply(n);
      table.commit(List.of(table.writeDataFile(rows)), Map.of(p, new OffsetRange(offset[0], offset[0] + n)));
      offset[0] += n;
      long c0 = mx.getCurrentThreadCpuTime(), w0 = System.nanoTime();
      sync.run(spec);
      long c1 = mx.getCurrentThreadCpuTime(), w1 = System.nanoTime();
      if (round >= 11) m.add(new long[] {(c1 - c0) / 1000, (w1 - w0) / 1000});
    }
    long[] cpu = m.stream().mapToLong(x -> x[0]).sorted().toArray(), wall = m.stream().mapToLong(x -> x[1]).sorted().toArray();
    System.out.printf("%d syncs of 5,000 rows: Java CPU of the syncing thread median %.1f ms (p10 %.1f, p90 %.1f); wall median %.1f ms (p10 %.1f, p90 %.1f)%n",
      cpu.length, cpu[cpu.length/2]/1e3, cpu[cpu.length/10]/1e3, cpu[cpu.length*9/10]/1e3, wall[wall.length/2]/1e3, wall[wall.length/10]/1e3, wall[wall.length*9/10]/1e3);
    try (var c = ds.getConnection(); var s = c.createStatement()) { s.execute("DROP SCHEMA " + schema + " CASCADE"); }
  }
}
