package io.tributary.delta;

import io.tributary.retry.Backoff;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.NoSuchBucketException;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * S3 (or an S3-compatible server) through the AWS SDK v2. Qualified paths are {@code s3://bucket/key}; {@code s3a://}
 * and {@code s3n://} (what Hadoop-based writers record) name the same objects.
 *
 * <p>SDK failures become {@link IOException}s, because Kernel only treats checked I/O errors as retryable.
 */
final class S3Storage implements Storage {

    private static final int CONFLICT_RETRIES = 20;
    /** A 409 means a write of the same key is in flight: it resolves within moments. About 8 s over all retries. */
    private static final Backoff CONFLICT_BACKOFF = Backoff.exponential(Duration.ofMillis(50), Duration.ofMillis(500));

    private final S3Client s3;

    S3Storage(S3Client s3) {
        this.s3 = s3;
    }

    record Location(String bucket, String key) {
        String uri() {
            return "s3://" + bucket + "/" + key;
        }
    }

    static boolean isS3(String path) {
        return path.startsWith("s3://") || path.startsWith("s3a://") || path.startsWith("s3n://");
    }

    static Location parse(String path) {
        if (!isS3(path)) {
            throw new IllegalArgumentException("not an S3 path: " + path + " (expected s3://bucket/key)");
        }
        String rest = path.substring(path.indexOf("://") + 3);
        int slash = rest.indexOf('/');
        String bucket = slash < 0 ? rest : rest.substring(0, slash);
        String key = slash < 0 ? "" : rest.substring(slash + 1);
        while (key.contains("//")) {
            key = key.replace("//", "/");
        }
        if (key.endsWith("/")) {
            key = key.substring(0, key.length() - 1);
        }
        if (bucket.isEmpty()) {
            throw new IllegalArgumentException("S3 path without a bucket: " + path);
        }
        return new Location(bucket, key);
    }

    @Override
    public String qualify(String path) {
        return parse(path).uri();
    }

    @Override
    public Optional<Entry> stat(String path) throws IOException {
        Location l = parse(path);
        try {
            HeadObjectResponse r = s3.headObject(b -> b.bucket(l.bucket()).key(l.key()));
            return Optional.of(new Entry(l.uri(), r.contentLength(), r.lastModified().toEpochMilli()));
        } catch (NoSuchKeyException e) {
            return Optional.empty();
        } catch (S3Exception e) {
            if (e.statusCode() == 404) {
                return Optional.empty();
            }
            throw io("stat", l, e);
        } catch (SdkException e) {
            throw io("stat", l, e);
        }
    }

    @Override
    public List<Entry> listFrom(String path) throws IOException {
        Location l = parse(path);
        int slash = l.key().lastIndexOf('/');
        String prefix = slash < 0 ? "" : l.key().substring(0, slash + 1);
        String from = l.key().substring(slash + 1);
        // startAfter is exclusive: start after the name minus its last character, then drop what sorts before it.
        String startAfter = from.isEmpty() ? null : prefix + from.substring(0, from.length() - 1);
        List<Entry> out = new ArrayList<>();
        boolean sawAnything = false;
        try {
            String token = null;
            do {
                ListObjectsV2Request.Builder req = ListObjectsV2Request.builder()
                        .bucket(l.bucket()).prefix(prefix).delimiter("/");
                if (token != null) {
                    req.continuationToken(token);
                } else if (startAfter != null) {
                    req.startAfter(startAfter);
                }
                ListObjectsV2Response r = s3.listObjectsV2(req.build());
                for (S3Object o : r.contents()) {
                    sawAnything = true;
                    String name = o.key().substring(prefix.length());
                    if (name.compareTo(from) >= 0) {
                        out.add(new Entry("s3://" + l.bucket() + "/" + o.key(), o.size(), o.lastModified().toEpochMilli()));
                    }
                }
                sawAnything |= !r.commonPrefixes().isEmpty(); // subdirectories also prove the directory exists
                token = Boolean.TRUE.equals(r.isTruncated()) ? r.nextContinuationToken() : null;
            } while (token != null);
        } catch (SdkException e) {
            throw io("list", l, e);
        }
        if (!sawAnything && !hasChildren("s3://" + l.bucket() + "/" + prefix)) {
            throw new FileNotFoundException("nothing under " + "s3://" + l.bucket() + "/" + prefix);
        }
        return out;
    }

    @Override
    public void walk(String dir, java.util.function.Consumer<Entry> visitor) throws IOException {
        Location l = parse(dir);
        try {
            for (S3Object o : objectsUnder(l)) {
                visitor.accept(new Entry("s3://" + l.bucket() + "/" + o.key(), o.size(), o.lastModified().toEpochMilli()));
            }
        } catch (SdkException e) {
            throw io("list", l, e);
        }
    }

    /** Every object under the location's key as a directory, listed page by page as the iteration goes. */
    private Iterable<S3Object> objectsUnder(Location l) {
        String prefix = l.key().isEmpty() ? "" : l.key() + "/";
        return s3.listObjectsV2Paginator(b -> b.bucket(l.bucket()).prefix(prefix)).contents();
    }

    @Override
    public boolean hasChildren(String dir) throws IOException {
        Location l = parse(dir);
        String prefix = l.key().isEmpty() ? "" : l.key() + "/";
        try {
            return s3.listObjectsV2(b -> b.bucket(l.bucket()).prefix(prefix).maxKeys(1)).keyCount() > 0;
        } catch (SdkException e) {
            throw io("list", l, e);
        }
    }

    @Override
    public byte[] read(String path) throws IOException {
        Location l = parse(path);
        try {
            return s3.getObjectAsBytes(b -> b.bucket(l.bucket()).key(l.key())).asByteArray();
        } catch (NoSuchKeyException e) {
            throw new FileNotFoundException(l.uri());
        } catch (SdkException e) {
            throw io("read", l, e);
        }
    }

    @Override
    public SeekableStream openSeekable(String path, long knownLength) throws IOException {
        Location l = parse(path);
        // Kernel passes size 0 when it does not know the size (FileStatus.of(path)), e.g. for _last_checkpoint.
        long length = knownLength > 0 ? knownLength
                : stat(path).orElseThrow(() -> new FileNotFoundException(l.uri())).size();
        return new S3RangedStream(s3, l, length);
    }

    @Override
    public void put(String path, byte[] data) throws IOException {
        Location l = parse(path);
        try {
            s3.putObject(b -> b.bucket(l.bucket()).key(l.key()).contentLength((long) data.length), RequestBody.fromBytes(data));
        } catch (SdkException e) {
            throw io("write", l, e);
        }
    }

    @Override
    public void put(String path, MemoryOutputFile file) throws IOException {
        Location l = parse(path);
        try {
            // A content provider reads the chunks in place (RequestBody.fromBytes copies the array first).
            s3.putObject(b -> b.bucket(l.bucket()).key(l.key()).contentLength(file.size()),
                    RequestBody.fromContentProvider(() -> {
                        try {
                            return file.open();
                        } catch (IOException e) {
                            throw new java.io.UncheckedIOException(e);
                        }
                    }, file.size(), "application/octet-stream"));
        } catch (SdkException e) {
            throw io("write", l, e);
        }
    }

    /**
     * {@code If-None-Match: *}: S3 answers 412 when the key exists, and 409 while another conditional write of the
     * same key is in flight (retry: it then resolves to 412 or to success). S3 decides atomically, so of several
     * processes racing for one commit file exactly one wins.
     */
    @Override
    public void putIfAbsent(String path, byte[] data) throws IOException {
        Location l = parse(path);
        for (int attempt = 1; ; attempt++) {
            try {
                s3.putObject(b -> b.bucket(l.bucket()).key(l.key()).ifNoneMatch("*").contentLength((long) data.length),
                        RequestBody.fromBytes(data));
                return;
            } catch (S3Exception e) {
                if (e.statusCode() == 412) {
                    if (isOurs(path, data)) {
                        return;
                    }
                    throw new FileAlreadyExistsException(l.uri());
                }
                if (e.statusCode() == 409 && attempt < CONFLICT_RETRIES) {
                    sleep(CONFLICT_BACKOFF.delay(attempt).toMillis());
                    continue;
                }
                throw io("create", l, e);
            } catch (SdkException e) {
                throw io("create", l, e);
            }
        }
    }

    /**
     * The SDK retries a PUT whose response was lost; if the lost attempt had succeeded, the retry meets our own object
     * and gets 412. Commit files carry a unique transaction id, so identical bytes mean the object is ours, and
     * reporting a conflict would make Kernel commit the same actions again under the next version.
     */
    private boolean isOurs(String path, byte[] data) throws IOException {
        try {
            return java.util.Arrays.equals(read(path), data);
        } catch (FileNotFoundException e) {
            return false;
        }
    }

    @Override
    public boolean delete(String path) throws IOException {
        Location l = parse(path);
        try {
            s3.deleteObject(b -> b.bucket(l.bucket()).key(l.key()));
            return true;
        } catch (SdkException e) {
            throw io("delete", l, e);
        }
    }

    /** One DELETE per object: multi-object delete needs Content-MD5 handling that S3-compatible servers vary on. */
    @Override
    public void deleteRecursively(String dir) throws IOException {
        Location l = parse(dir);
        try {
            for (S3Object o : objectsUnder(l)) {
                s3.deleteObject(b -> b.bucket(l.bucket()).key(o.key()));
            }
        } catch (SdkException e) {
            throw io("delete", l, e);
        }
    }

    /**
     * A failure of the warehouse as a whole (no bucket, credentials refused, endpoint unreachable) says which setting
     * to fix; a stream create would otherwise answer 500 and a pipeline show the SDK's words only.
     */
    static IOException io(String what, Location l, SdkException e) {
        String failed = "S3 " + what + " of " + l.uri() + " failed: " + e.getMessage();
        if (e instanceof NoSuchBucketException
                || e instanceof S3Exception s && "NoSuchBucket".equals(errorCode(s))) {
            return new WarehouseUnavailableException("the warehouse bucket '" + l.bucket() + "' does not exist: "
                    + "create it, or point TRIBUTARY_WAREHOUSE at an existing bucket (" + failed + ")", e);
        }
        if (e instanceof S3Exception s && (s.statusCode() == 401 || s.statusCode() == 403)) {
            return new WarehouseUnavailableException("S3 refused access to " + l.uri() + " (HTTP " + s.statusCode()
                    + (errorCode(s) == null ? "" : ", " + errorCode(s)) + "): check the server's AWS credentials "
                    + "(the default chain: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, a profile or a role), "
                    + "TRIBUTARY_S3_REGION and the bucket's policy (" + failed + ")", e);
        }
        if (e instanceof SdkClientException) {
            return new WarehouseUnavailableException("the warehouse at " + l.uri() + " cannot be reached: "
                    + e.getMessage() + "; check TRIBUTARY_S3_ENDPOINT (or the network to S3) and that AWS "
                    + "credentials are available to the server", e);
        }
        return new IOException(failed, e);
    }

    private static String errorCode(S3Exception e) {
        return e.awsErrorDetails() == null ? null : e.awsErrorDetails().errorCode();
    }

    private static void sleep(long millis) throws IOException {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException("interrupted");
        }
    }
}
