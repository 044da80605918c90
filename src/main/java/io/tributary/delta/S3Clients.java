package io.tributary.delta;

import java.net.URI;
import java.time.Duration;
import java.util.Optional;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;

/** Builds the S3 client from the warehouse configuration. */
final class S3Clients {
    private S3Clients() {}

    static S3Client create(Warehouse warehouse) {
        S3ClientBuilder b = S3Client.builder()
                // The URL-connection client keeps native images small and needs no Netty or Apache HTTP reflection.
                .httpClientBuilder(UrlConnectionHttpClient.builder()
                        // generous: a slow answer retried is worse (see S3Storage.putIfAbsent) than a slow answer
                        .connectionTimeout(Duration.ofSeconds(10))
                        .socketTimeout(Duration.ofSeconds(60)))
                .region(Region.of(region(warehouse)))
                .credentialsProvider(DefaultCredentialsProvider.builder().build());
        warehouse.s3Endpoint().ifPresent(endpoint -> b.endpointOverride(URI.create(endpoint))
                .forcePathStyle(true)
                // S3-compatible servers differ in their support of the SDK's default flexible checksums.
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED));
        return b.build();
    }

    static String region(Warehouse warehouse) {
        return warehouse.s3Region()
                .or(() -> env("AWS_REGION"))
                .or(() -> env("AWS_DEFAULT_REGION"))
                .or(() -> Optional.ofNullable(System.getProperty("aws.region")).filter(s -> !s.isBlank()))
                .orElse("us-east-1");
    }

    private static Optional<String> env(String name) {
        return Optional.ofNullable(System.getenv(name)).filter(s -> !s.isBlank());
    }
}
