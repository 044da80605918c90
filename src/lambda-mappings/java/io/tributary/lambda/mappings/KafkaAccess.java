package io.tributary.lambda.mappings;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How an event source mapping reaches a stream's Kafka cluster, read from the stream's Kafka client properties
 * (bootstrap servers, SASL mechanism and JAAS credentials). The password never leaves this record except into
 * the Secrets Manager secret the mapping reads; toString leaves it out.
 */
record KafkaAccess(List<String> bootstrapServers, Auth auth, String username, String password) {

    enum Auth { NONE, PLAIN, SCRAM_SHA_256, SCRAM_SHA_512, MSK_IAM }

    private static final Pattern JAAS_OPTION = Pattern.compile("(username|password)\\s*=\\s*\"([^\"]*)\"");

    static KafkaAccess of(Map<String, String> kafkaProperties) {
        String servers = kafkaProperties.get("bootstrap.servers");
        if (servers == null || servers.isBlank()) {
            throw new IllegalArgumentException("bootstrap.servers is missing from the stream's Kafka properties");
        }
        List<String> bootstrapServers = Arrays.stream(servers.split(",")).map(String::strip)
                .filter(s -> !s.isEmpty()).toList();
        if (kafkaProperties.containsKey("ssl.keystore.location")) {
            throw new IllegalArgumentException("connection_config.direct_mtls_config cannot be used on AWS Lambda yet: "
                    + "event source mappings take client certificates from Secrets Manager as PEM, not keystores; "
                    + "use a connection with SASL or MSK IAM");
        }
        String mechanism = kafkaProperties.getOrDefault("sasl.mechanism", "");
        Auth auth = switch (mechanism) {
            case "" -> Auth.NONE;
            case "PLAIN" -> Auth.PLAIN;
            case "SCRAM-SHA-256" -> Auth.SCRAM_SHA_256;
            case "SCRAM-SHA-512" -> Auth.SCRAM_SHA_512;
            case "AWS_MSK_IAM" -> Auth.MSK_IAM;
            default -> throw new IllegalArgumentException("sasl.mechanism " + mechanism + " is not supported by Lambda "
                    + "event source mappings; use PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 or MSK IAM");
        };
        if (auth == Auth.NONE || auth == Auth.MSK_IAM) {
            return new KafkaAccess(bootstrapServers, auth, null, null);
        }
        String jaas = kafkaProperties.getOrDefault("sasl.jaas.config", "");
        String username = null;
        String password = null;
        for (Matcher m = JAAS_OPTION.matcher(jaas); m.find(); ) {
            if (m.group(1).equals("username")) {
                username = m.group(2);
            } else {
                password = m.group(2);
            }
        }
        if (username == null || password == null) {
            throw new IllegalArgumentException("sasl.jaas.config must hold username=\"...\" and password=\"...\" for "
                    + mechanism);
        }
        return new KafkaAccess(bootstrapServers, auth, username, password);
    }

    /**
     * The MSK cluster whose brokers these are: MSK broker names are {@code b-N.<cluster name>.<id>.cN.kafka.<region>
     * .amazonaws.com}, and a cluster ARN ends in {@code cluster/<cluster name>/<uuid>}.
     */
    Optional<String> mskCluster(List<String> clusterArns) {
        String host = bootstrapServers.get(0).split(":")[0];
        if (!host.endsWith(".amazonaws.com") || !host.contains(".kafka.")) {
            return Optional.empty();
        }
        String[] labels = host.split("\\.");
        return clusterArns.stream()
                .filter(arn -> labels.length > 1 && arn.contains(":cluster/" + labels[1] + "/"))
                .findFirst();
    }

    @Override
    public String toString() {
        return "KafkaAccess[" + bootstrapServers + ", " + auth + (username == null ? "" : ", user " + username) + "]";
    }
}
