package io.tributary.server;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.tributary.delta.PartitionKey;
import io.tributary.ingest.CommitResult;
import io.tributary.ingest.SourceRecord;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/** One stream's meters, exported at /q/metrics; removed when the stream stops. */
final class PipelineMetrics {

    private static final long FRESHNESS_SAMPLES_PER_BATCH = 1000;

    private final MeterRegistry registry;
    private final Tags tags;
    private final PipelineStatus status;
    private final Counter records;
    private final Counter bytes;
    private final Counter decodeFailures;
    private final Timer commitLatency;
    private final Timer freshness;
    private final List<Meter> meters = new ArrayList<>();
    private final Set<PartitionKey> lagGauges = ConcurrentHashMap.newKeySet();

    PipelineMetrics(MeterRegistry registry, String streamName, PipelineStatus status) {
        this.registry = registry;
        this.tags = Tags.of("stream", streamName);
        this.status = status;
        records = keep(Counter.builder("tributary.ingest.records").description("Kafka records committed to the table")
                .tags(tags).register(registry));
        bytes = keep(Counter.builder("tributary.ingest.bytes").description("key and value bytes committed")
                .baseUnit("bytes").tags(tags).register(registry));
        decodeFailures = keep(Counter.builder("tributary.ingest.decode.failures")
                .description("keys and values that did not decode under their schema and were written as NULL")
                .tags(tags).register(registry));
        commitLatency = keep(Timer.builder("tributary.ingest.commit.latency").description("Delta commit duration")
                .tags(tags).publishPercentiles(0.5, 0.99).register(registry));
        freshness = keep(Timer.builder("tributary.ingest.freshness")
                .description("from a record's Kafka timestamp to the commit that made it readable")
                .tags(tags).publishPercentiles(0.5, 0.99).distributionStatisticExpiry(Duration.ofMinutes(1))
                .register(registry));
        keep(Gauge.builder("tributary.ingest.failed", status, s -> s.state() == io.tributary.ingest.IngestionStatus
                .State.FAILED ? 1 : 0).description("1 while the pipeline is FAILED").tags(tags).register(registry));
        keep(Gauge.builder("tributary.ingest.stalled", status, s -> s.state() == io.tributary.ingest.IngestionStatus
                .State.STALLED ? 1 : 0).description("1 while the stream is STALLED (records wait, none commit)")
                .tags(tags).register(registry));
        keep(Gauge.builder("tributary.ingest.valid.through", status, s -> epochSeconds(s.validThrough()))
                .description("valid_through: the oldest of the partitions' newest committed record timestamps, "
                        + "epoch seconds (NaN until every partition committed a record)")
                .baseUnit("seconds").tags(tags).register(registry));
    }

    private static double epochSeconds(java.time.Instant t) {
        return t == null ? Double.NaN : t.toEpochMilli() / 1000.0;
    }

    void committed(CommitResult result) {
        records.increment(result.rows());
        bytes.increment(result.bytes());
        decodeFailures.increment(result.decodeFailures());
        commitLatency.record(result.commitNanos(), TimeUnit.NANOSECONDS);
        long now = result.committedAt().toEpochMilli();
        // An evenly spread sample keeps the percentiles honest without a histogram update per record on the hot path.
        long stride = Math.max(1, result.rows() / FRESHNESS_SAMPLES_PER_BATCH);
        long i = 0;
        for (List<SourceRecord> list : result.committed()) {
            for (SourceRecord r : list) {
                if (i++ % stride == 0) {
                    freshness.record(Math.max(0, now - r.timestampMs()), TimeUnit.MILLISECONDS);
                }
            }
        }
        result.positions().keySet().forEach(this::lagGauge);
    }

    /** Registers the lag gauge of a partition the first time the pipeline sees it. */
    void lagGauge(PartitionKey key) {
        if (lagGauges.add(key)) {
            keep(Gauge.builder("tributary.ingest.lag", status, s -> s.lag(key))
                    .description("records between the partition's end offset and the table's position")
                    .tags(tags.and("topic", key.topic(), "partition", Integer.toString(key.partition())))
                    .register(registry));
            keep(Gauge.builder("tributary.ingest.last.commit", status, s -> epochSeconds(s.lastCommitAt(key)))
                    .description("when a commit last added records of the partition, epoch seconds (NaN: never)")
                    .baseUnit("seconds")
                    .tags(tags.and("topic", key.topic(), "partition", Integer.toString(key.partition())))
                    .register(registry));
        }
    }

    void remove() {
        synchronized (meters) {
            meters.forEach(registry::remove);
            meters.clear();
        }
    }

    private <M extends Meter> M keep(M meter) {
        synchronized (meters) {
            meters.add(meter);
        }
        return meter;
    }
}
