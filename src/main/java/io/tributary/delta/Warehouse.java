package io.tributary.delta;

import java.util.Objects;
import java.util.Optional;

/**
 * Where tables live and how to reach S3 (SPEC 6: {@code TRIBUTARY_WAREHOUSE}, {@code TRIBUTARY_S3_ENDPOINT}).
 *
 * @param root      a local path or {@code s3://bucket/prefix}
 * @param s3Endpoint an S3-compatible endpoint such as {@code http://127.0.0.1:9000}; path-style addressing is used
 *                  with it. Empty means AWS.
 * @param s3Region  the signing region; empty means {@code AWS_REGION}, {@code AWS_DEFAULT_REGION}, the
 *                  {@code aws.region} system property, then {@code us-east-1}. Credentials always come from the AWS
 *                  default chain.
 */
public record Warehouse(String root, Optional<String> s3Endpoint, Optional<String> s3Region) {

    public Warehouse {
        Objects.requireNonNull(root, "root");
        if (root.isBlank()) {
            throw new IllegalArgumentException("warehouse root is empty: set TRIBUTARY_WAREHOUSE to a path or s3://bucket/prefix");
        }
        s3Endpoint = s3Endpoint.filter(e -> !e.isBlank());
        s3Region = s3Region.filter(r -> !r.isBlank());
    }

    public Warehouse(String root, Optional<String> s3Endpoint) {
        this(root, s3Endpoint, Optional.empty());
    }
}
