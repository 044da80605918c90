package io.tributary.delta;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;

/**
 * An S3 object read with ranged GETs, reopening only on a backward or long forward seek: Parquet readers jump to the
 * footer and then to column chunks, and a fresh GET per read would cost a round trip each.
 */
final class S3RangedStream extends Storage.SeekableStream {
    private static final long SKIP_LIMIT = 1 << 20;
    private final S3Client s3;
    private final S3Storage.Location location;
    private final long length;
    private long pos;
    private long streamPos;
    private InputStream current;

    S3RangedStream(S3Client s3, S3Storage.Location location, long length) {
        this.s3 = s3;
        this.location = location;
        this.length = length;
    }

    @Override
    long position() {
        return pos;
    }

    @Override
    void seek(long position) throws IOException {
        if (position < 0 || position > length) {
            throw new java.io.EOFException("seek to " + position + " outside 0.." + length + " in " + location.uri());
        }
        pos = position;
    }

    @Override
    long length() {
        return length;
    }

    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        int n = read(one, 0, 1);
        return n < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        if (len == 0) {
            return 0;
        }
        if (pos >= length) {
            return -1;
        }
        if (current == null || pos < streamPos || pos - streamPos > SKIP_LIMIT) {
            reopen();
        } else if (pos > streamPos) {
            current.skipNBytes(pos - streamPos);
            streamPos = pos;
        }
        int n = current.read(b, off, (int) Math.min(len, length - pos));
        if (n > 0) {
            pos += n;
            streamPos += n;
        }
        return n;
    }

    private void reopen() throws IOException {
        close();
        try {
            ResponseInputStream<GetObjectResponse> in = s3.getObject(
                    g -> g.bucket(location.bucket()).key(location.key()).range("bytes=" + pos + "-"));
            current = in;
            streamPos = pos;
        } catch (NoSuchKeyException e) {
            throw new FileNotFoundException(location.uri());
        } catch (SdkException e) {
            throw S3Storage.io("read", location, e);
        }
    }

    @Override
    public void close() throws IOException {
        if (current != null) {
            if (current instanceof ResponseInputStream<?> r) {
                r.abort(); // don't drain the rest of a large object just to close it
            }
            current.close();
            current = null;
        }
    }
}