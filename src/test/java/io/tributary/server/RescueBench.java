package io.tributary.server;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tributary.delta.PartitionKey;
import io.tributary.delta.Tables;
import io.tributary.ingest.IngestionStatus;
import io.tributary.ingest.PipelineSpec;
import io.tributary.ingest.Subscription;
import io.tributary.schema.SchemaSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The cost of {@code rescue_undecodable} when every record decodes, for {@code bench/ingest/run.sh} with
 * {@code BENCH_RESCUE=<rounds>}: the same catch-up of the bench topic, alternately into a table without and with the
 * {@code _rescued_data} column, each on a fresh table; medians and their ratio (goal: at least 0.95).
 */
final class RescueBench {

    private RescueBench() {}

    static void run(String bootstrap, String topic, int records, Tables tables, PipelineSettings settings,
            Map<PartitionKey, Long> fromStart, int rounds) throws InterruptedException {
        List<Double> off = new ArrayList<>();
        List<Double> on = new ArrayList<>();
        List<Double> paired = new ArrayList<>();
        for (int round = 0; round < rounds; round++) {
            // Alternating which goes first spreads the machine's drift over both.
            for (boolean rescue : round % 2 == 0 ? List.of(false, true) : List.of(true, false)) {
                String name = "rescue_" + round + (rescue ? "_on" : "_off");
                Subscription topics = new Subscription.Topics(List.of(topic));
                SchemaSource value = new SchemaSource.JsonSchema(IngestBench.JSON_SCHEMA);
                Map<String, String> kafka = Map.of("bootstrap.servers", bootstrap);
                PipelineSpec spec = rescue
                        ? KafkaStreamFixture.createRescuing(tables, name, topics, new SchemaSource.Plain(), value,
                                fromStart, kafka)
                        : KafkaStreamFixture.create(tables, name, topics, new SchemaSource.Plain(), value, fromStart,
                                kafka);
                double rate = catchUp(spec, settings, tables, records);
                (rescue ? on : off).add(rate);
                System.out.printf("  round %d rescue %s: %,.0f records/s%n", round + 1, rescue ? "on " : "off", rate);
            }
            paired.add(on.get(on.size() - 1) / off.get(off.size() - 1));
        }
        double offMedian = median(off);
        double onMedian = median(on);
        System.out.printf("catch-up with rescue off: median %,.0f records/s over %d runs%n", offMedian, rounds);
        System.out.printf("catch-up with rescue on:  median %,.0f records/s over %d runs%n", onMedian, rounds);
        System.out.printf("ratio rescue on / off: %.3f of the medians; %.3f the median of each round's on / off "
                + "(the pair ran back to back, so the machine's drift over the run cancels); goal: at least 0.95, "
                + "every record decodes; machine load average %.1f%n", onMedian / offMedian, median(paired),
                java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    }

    private static double catchUp(PipelineSpec spec, PipelineSettings settings, Tables tables, int records)
            throws InterruptedException {
        PipelineStatus status = new PipelineStatus();
        StreamPipeline pipeline = new StreamPipeline(spec, settings, new TableIngesters(tables), status,
                new PipelineMetrics(new SimpleMeterRegistry(), spec.streamName(), status));
        long started = System.nanoTime();
        pipeline.start();
        while (pipeline.status().rowsIngested() < records) {
            if (pipeline.status().state() == IngestionStatus.State.FAILED) {
                throw new IllegalStateException(pipeline.status().stateMessage());
            }
            Thread.sleep(20);
        }
        double seconds = (System.nanoTime() - started) / 1e9;
        pipeline.stop();
        if (pipeline.status().decodeFailures() != 0) {
            throw new IllegalStateException("the bench's records must all decode");
        }
        return records / seconds;
    }

    private static double median(List<Double> values) {
        List<Double> sorted = values.stream().sorted().toList();
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }
}
