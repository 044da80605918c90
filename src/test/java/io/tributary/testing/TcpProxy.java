package io.tributary.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP proxy on 127.0.0.1 in front of one upstream port, for outages a test switches on and off. {@link Mode#FORWARD}
 * passes bytes; {@link Mode#REFUSE} resets every open connection and every new one (a stopped server); {@link
 * Mode#BLACKHOLE} keeps connections open but passes nothing either way (a network partition: the case no client
 * timeout covers by default).
 */
public final class TcpProxy implements AutoCloseable {
    public enum Mode { FORWARD, REFUSE, BLACKHOLE }

    private final ServerSocket server;
    private final int upstreamPort;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private volatile Mode mode = Mode.FORWARD;

    public TcpProxy(int upstreamPort) throws IOException {
        this.upstreamPort = upstreamPort;
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::accept, "tcp-proxy-accept-" + server.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    public int port() {
        return server.getLocalPort();
    }

    public void mode(Mode next) {
        mode = next;
        if (next == Mode.REFUSE) {
            open.forEach(TcpProxy::reset);
        }
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                if (mode == Mode.REFUSE) {
                    reset(client);
                    continue;
                }
                Socket upstream = new Socket();
                upstream.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), upstreamPort), 2000);
                open.add(client);
                open.add(upstream);
                pump(client, upstream);
                pump(upstream, client);
            } catch (IOException e) {
                // a closed proxy or a failed upstream connect: the client sees its connection end
            }
        }
    }

    private void pump(Socket from, Socket to) {
        Thread t = new Thread(() -> {
            byte[] buffer = new byte[16 * 1024];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buffer)) >= 0) {
                    while (mode == Mode.BLACKHOLE) {
                        Thread.sleep(20);
                    }
                    if (mode == Mode.REFUSE) {
                        break;
                    }
                    out.write(buffer, 0, n);
                    out.flush();
                }
            } catch (IOException e) {
                // either side went away
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                reset(from);
                reset(to);
            }
        }, "tcp-proxy-pump");
        t.setDaemon(true);
        t.start();
    }

    private static void reset(Socket s) {
        try {
            s.setSoLinger(true, 0);
            s.close();
        } catch (IOException e) {
            // already closed
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
        open.forEach(TcpProxy::reset);
    }
}
