package io.tributary.ingest;

import io.tributary.delta.PartitionKey;
import java.util.Map;
import java.util.Set;

/**
 * What Kafka says about the topics a batch came from, so a topic deleted and created again under the same name is
 * told apart from the one the table's positions belong to (Kafka gives every topic a new id when it is created).
 * Neither a consumer record nor a Lambda event carries the id, so each runtime asks the cluster.
 */
public interface TopicIds {

    /** The id and partition count of every topic among {@code topics} that exists now; absent topics are left out. */
    Map<String, Topic> describe(Set<String> topics);

    /** The end offset of each partition that exists now (read-committed); absent partitions are left out. */
    Map<PartitionKey, Long> endOffsets(Set<PartitionKey> partitions);

    /**
     * The first offset each partition still holds (its log start offset: retention and DeleteRecords move it);
     * absent partitions are left out.
     */
    Map<PartitionKey, Long> startOffsets(Set<PartitionKey> partitions);

    /** {@code id}: Kafka's topic id in its usual base64 form. */
    record Topic(String id, int partitions) {}
}
