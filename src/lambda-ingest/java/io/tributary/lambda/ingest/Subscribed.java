package io.tributary.lambda.ingest;

import io.tributary.ingest.SourceRecord;
import io.tributary.ingest.Subscription;
import java.util.List;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * Which records of an event belong to the stream. An event source mapping reads whole topics, so for {@code assign}
 * the partitions the stream does not assign arrive too and are dropped here; for the other modes this only guards
 * against a mapping pointed at the wrong alias.
 */
final class Subscribed {

    private Subscribed() {}

    static Predicate<SourceRecord> by(Subscription subscription) {
        if (subscription instanceof Subscription.Topics topics) {
            List<String> names = topics.topics();
            return r -> names.contains(r.topic());
        }
        if (subscription instanceof Subscription.Pattern pattern) {
            Pattern regex = Pattern.compile(pattern.regex());
            return r -> regex.matcher(r.topic()).matches();
        }
        Subscription.Assign assign = (Subscription.Assign) subscription;
        return r -> assign.partitions().getOrDefault(r.topic(), List.of()).contains(r.partition());
    }
}
