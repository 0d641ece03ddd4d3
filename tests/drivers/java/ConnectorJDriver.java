// MariaDB Connector/J against basaltd, with server-side prepared statements
// (useServerPrepStmts=true: COM_STMT_PREPARE / EXECUTE, binary rows) and plain
// Statements (text): connect (the driver's own start-up queries), DDL, every SQL type
// Basalt has, NULLs, a transaction committed and one rolled back, errors by errno, and
// the connection still working after each. Prints `ok ...` per check and
// `OK connector-j` at the end; exits non-zero on the first mismatch.
// Usage: java -cp .:mariadb-java-client.jar ConnectorJDriver PORT
import java.math.BigDecimal;
import java.sql.*;
import java.util.*;

public class ConnectorJDriver {
    static final String DDL = "CREATE TABLE all_types (\n"
        + "  id INT NOT NULL PRIMARY KEY,\n"
        + "  ti TINYINT, tu TINYINT UNSIGNED, si SMALLINT, su SMALLINT UNSIGNED,\n"
        + "  mi MEDIUMINT, mu MEDIUMINT UNSIGNED, i INT, iu INT UNSIGNED,\n"
        + "  bi BIGINT, bu BIGINT UNSIGNED, de DECIMAL(20,6), f FLOAT, d DOUBLE,\n"
        + "  c CHAR(10), vc VARCHAR(100), tx TEXT, bl BLOB, vb VARBINARY(16),\n"
        + "  da DATE, dt DATETIME, dt6 DATETIME(6), ts TIMESTAMP NULL, tm TIME, tm3 TIME(3),\n"
        + "  yr YEAR, UNIQUE KEY uk_vc (vc))";

    static final String[] COLUMNS = {"id", "ti", "tu", "si", "su", "mi", "mu", "i", "iu", "bi",
        "bu", "de", "f", "d", "c", "vc", "tx", "bl", "vb", "da", "dt", "dt6", "ts", "tm", "tm3",
        "yr"};

    static final String VC = "h\u00e9llo w\u00f6rld \u2713 \uD83D\uDE00";
    static final String TX = "t\u00fc".repeat(500);

    static final String MIN_SQL = "(1, -128, 0, -32768, 0, -8388608, 0, -2147483648, 0,"
        + " -9223372036854775808, 0, -12345678901234.123456, -1.5, -2.5e-300, 'abc', '" + VC
        + "', REPEAT('t\u00fc', 500), X'00010203FEFF', X'00FF', '1000-01-01',"
        + " '1000-01-01 00:00:00', '2024-02-29 23:59:59.123456', '1970-01-02 00:00:01',"
        + " '-838:59:59', '-00:00:01.500', 1901)";

    static final Object[] MIN_ROW = {1L, -128L, 0L, -32768L, 0L, -8388608L, 0L, -2147483648L, 0L,
        Long.MIN_VALUE, new BigDecimal("0"), new BigDecimal("-12345678901234.123456"), -1.5f,
        -2.5e-300, "abc", VC, TX, new byte[] {0, 1, 2, 3, (byte) 0xfe, (byte) 0xff},
        new byte[] {0, (byte) 0xff}, "1000-01-01", "1000-01-01 00:00:00",
        "2024-02-29 23:59:59.123456", "1970-01-02 00:00:01", "-838:59:59", "-00:00:01.500",
        1901L};

    static final Object[] MAX_ROW = {2L, 127L, 255L, 32767L, 65535L, 8388607L, 16777215L,
        2147483647L, 4294967295L, Long.MAX_VALUE, new BigDecimal("18446744073709551615"),
        new BigDecimal("99999999999999.999999"), 3.25f, 3.141592653589793, "xyz", "", "",
        allBytes(), new byte[0], "9999-12-31", "9999-12-31 23:59:59",
        "2001-02-03 04:05:06.000007", "2038-01-19 03:14:07", "838:59:59", "12:34:56.789", 2155L};

    static byte[] allBytes() {
        byte[] b = new byte[256];
        for (int i = 0; i < 256; i++) b[i] = (byte) i;
        return b;
    }

    static Object[] nullRow(long id) {
        Object[] r = new Object[COLUMNS.length];
        r[0] = id;
        return r;
    }

    static void log(String s) {
        System.out.println(s);
    }

    static void fail(String s) {
        throw new AssertionError(s);
    }

    /** Reads column k of the current row with the getter that fits its type. */
    static Object get(ResultSet rs, int k) throws SQLException {
        int c = k + 1;
        Object v;
        String name = COLUMNS[k];
        switch (name) {
            case "bu": case "de": v = rs.getBigDecimal(c); break;
            case "f": v = rs.getFloat(c); break;
            case "d": v = rs.getDouble(c); break;
            case "c": case "vc": case "tx": v = rs.getString(c); break;
            case "bl": case "vb": v = rs.getBytes(c); break;
            case "da": v = rs.getString(c); break;
            case "dt": case "dt6": case "ts": v = timestampString(rs.getTimestamp(c), name); break;
            case "tm": case "tm3": v = rs.getString(c); break;
            default: v = rs.getLong(c);
        }
        return rs.wasNull() ? null : v;
    }

    /** A Timestamp as `yyyy-mm-dd hh:mm:ss[.ffffff]` (six digits for dt6, none else). */
    static String timestampString(Timestamp t, String name) {
        if (t == null) return null;
        String s = t.toString(); // yyyy-mm-dd hh:mm:ss.fffffffff, trailing zeros cut
        String base = s.substring(0, 19);
        if (!name.equals("dt6")) return base;
        return base + "." + String.format("%06d", t.getNanos() / 1000);
    }

    static void checkRows(String what, ResultSet rs, Object[]... want) throws SQLException {
        boolean binary = what.startsWith("prepared");
        int n = 0;
        while (rs.next()) {
            if (n >= want.length) fail(what + ": more rows than " + want.length);
            Object[] w = binary ? asBinaryString(want[n]) : want[n];
            for (int k = 0; k < COLUMNS.length; k++) {
                Object g = get(rs, k);
                boolean same = (g instanceof byte[] && w[k] instanceof byte[])
                    ? Arrays.equals((byte[]) g, (byte[]) w[k]) : Objects.equals(g, w[k]);
                if (!same) {
                    fail(what + ": row id=" + w[0] + " column " + COLUMNS[k] + ": got "
                        + show(g) + ", want " + show(w[k]));
                }
            }
            n++;
        }
        if (n != want.length) fail(what + ": " + n + " rows, want " + want.length);
        log("ok " + what + ": " + n + " rows");
    }

    /**
     * The row as Connector/J 2.7's getString shows a binary TIME: always with six
     * fractional digits (its BinaryRowProtocol.getInternalTimeString), whatever the
     * column's scale; the text protocol hands back the server's own text.
     */
    static Object[] asBinaryString(Object[] row) {
        Object[] out = row.clone();
        for (int k = 0; k < COLUMNS.length; k++) {
            if ((COLUMNS[k].equals("tm") || COLUMNS[k].equals("tm3")) && out[k] != null) {
                String s = (String) out[k];
                int dot = s.indexOf('.');
                String frac = dot < 0 ? "" : s.substring(dot + 1);
                out[k] = (dot < 0 ? s : s.substring(0, dot)) + "." + (frac + "000000").substring(0, 6);
            }
        }
        return out;
    }

    static String show(Object o) {
        if (o instanceof byte[]) return Arrays.toString((byte[]) o);
        return o == null ? "NULL" : o + " (" + o.getClass().getSimpleName() + ")";
    }

    static void bind(PreparedStatement ps, Object[] row) throws SQLException {
        for (int k = 0; k < COLUMNS.length; k++) {
            int p = k + 1;
            Object v = row[k];
            String name = COLUMNS[k];
            if (v == null) {
                int type;
                switch (name) {
                    case "de": type = Types.DECIMAL; break;
                    case "f": type = Types.REAL; break;
                    case "d": type = Types.DOUBLE; break;
                    case "c": case "vc": case "tx": case "tm": case "tm3": type = Types.VARCHAR; break;
                    case "bl": case "vb": type = Types.VARBINARY; break;
                    case "da": type = Types.DATE; break;
                    case "dt": case "dt6": case "ts": type = Types.TIMESTAMP; break;
                    default: type = Types.BIGINT;
                }
                ps.setNull(p, type);
                continue;
            }
            switch (name) {
                case "ti": ps.setByte(p, (byte) (long) (Long) v); break;
                case "si": ps.setShort(p, (short) (long) (Long) v); break;
                case "id": case "tu": case "su": case "mi": case "mu": case "i": case "yr":
                    ps.setInt(p, (int) (long) (Long) v); break;
                case "bu": case "de": ps.setBigDecimal(p, (BigDecimal) v); break;
                case "f": ps.setFloat(p, (Float) v); break;
                case "d": ps.setDouble(p, (Double) v); break;
                case "bl": case "vb": ps.setBytes(p, (byte[]) v); break;
                case "da": ps.setDate(p, java.sql.Date.valueOf((String) v)); break;
                case "dt": case "dt6": case "ts": ps.setTimestamp(p, Timestamp.valueOf((String) v)); break;
                case "c": case "vc": case "tx": case "tm": case "tm3": ps.setString(p, (String) v); break;
                default: ps.setLong(p, (Long) v); // iu, bi
            }
        }
    }

    interface Action {
        void run() throws SQLException;
    }

    static void expectErrno(String what, int errno, Action a) {
        try {
            a.run();
        } catch (SQLException e) {
            if (e.getErrorCode() != errno) {
                fail(what + ": errno " + e.getErrorCode() + " (" + e + "), want " + errno);
            }
            log("ok " + what + ": errno " + e.getErrorCode() + " " + e.getSQLState());
            return;
        }
        fail(what + ": no error, want errno " + errno);
    }

    static long count(Connection c, String where) throws SQLException {
        try (Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT COUNT(*) FROM all_types WHERE " + where)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    public static void main(String[] args) throws Exception {
        TimeZone.setDefault(TimeZone.getTimeZone("UTC"));
        int port = Integer.parseInt(args[0]);
        String url = "jdbc:mariadb://127.0.0.1:" + port + "/?user=root&useServerPrepStmts=true";
        try (Connection c = DriverManager.getConnection(url)) {
            DatabaseMetaData md = c.getMetaData();
            log("connected: " + md.getDatabaseProductName() + " " + md.getDatabaseProductVersion()
                + " via " + md.getDriverName() + " " + md.getDriverVersion());
            Statement st = c.createStatement();
            // What the driver asks at connect time and for its connection properties.
            try (ResultSet rs = st.executeQuery("SELECT @@session.transaction_read_only,"
                    + " @@max_allowed_packet, @@character_set_results, @@character_set_client")) {
                rs.next();
                if (rs.getInt(1) != 0) fail("transaction_read_only");
                if (rs.getLong(2) <= 0) fail("max_allowed_packet");
                rs.getString(3);
                if (!rs.getString(4).startsWith("utf8")) fail("character_set_client " + rs.getString(4));
            }
            if (c.isReadOnly()) fail("read-only connection");
            if (c.getTransactionIsolation() != Connection.TRANSACTION_REPEATABLE_READ) {
                fail("isolation " + c.getTransactionIsolation());
            }
            c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
            if (c.getTransactionIsolation() != Connection.TRANSACTION_READ_COMMITTED) {
                fail("isolation after set " + c.getTransactionIsolation());
            }
            c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            if (!c.isValid(5)) fail("isValid");
            log("ok connection properties");

            st.execute("DROP DATABASE IF EXISTS drv_connj");
            st.execute("CREATE DATABASE drv_connj");
            c.setCatalog("drv_connj");
            if (!"drv_connj".equals(c.getCatalog())) fail("catalog " + c.getCatalog());
            st.execute(DDL);
            log("ok ddl");

            st.executeUpdate("INSERT INTO all_types VALUES " + MIN_SQL);
            String insert = "INSERT INTO all_types VALUES (" + "?, ".repeat(COLUMNS.length - 1) + "?)";
            try (PreparedStatement ps = c.prepareStatement(insert)) {
                bind(ps, MAX_ROW);
                if (ps.executeUpdate() != 1) fail("insert count");
                bind(ps, nullRow(3));
                ps.executeUpdate();
            }
            st.executeUpdate("INSERT INTO all_types (id) VALUES (4)");
            Object[][] all = {MIN_ROW, MAX_ROW, nullRow(3), nullRow(4)};

            checkRows("text select", st.executeQuery("SELECT * FROM all_types ORDER BY id"), all);
            try (PreparedStatement ps = c.prepareStatement("SELECT * FROM all_types ORDER BY id")) {
                checkRows("prepared select", ps.executeQuery(), all);
            }
            try (PreparedStatement ps = c.prepareStatement("SELECT * FROM all_types WHERE id = ?")) {
                for (Object[] row : all) {
                    ps.setInt(1, (int) (long) (Long) row[0]);
                    checkRows("prepared select id=" + row[0], ps.executeQuery(), new Object[][] {row});
                }
            }
            // Each column compared with a parameter bound with the setter that fits it.
            for (int k = 1; k < COLUMNS.length; k++) {
                String name = COLUMNS[k];
                if (name.equals("tx")) continue;
                try (PreparedStatement ps = c.prepareStatement(
                        "SELECT id FROM all_types WHERE " + name + " = ?")) {
                    for (Object[] row : new Object[][] {MIN_ROW, MAX_ROW}) {
                        bindOne(ps, name, row[k]);
                        try (ResultSet rs = ps.executeQuery()) {
                            List<Long> ids = new ArrayList<>();
                            while (rs.next()) ids.add(rs.getLong(1));
                            if (!ids.equals(List.of((Long) row[0]))) {
                                fail("WHERE " + name + " = " + show(row[k]) + ": ids " + ids);
                            }
                        }
                    }
                }
            }
            log("ok prepared comparisons with every column");
            try (PreparedStatement ps = c.prepareStatement(
                    "SELECT id FROM all_types WHERE ti IS NULL ORDER BY id")) {
                ResultSet rs = ps.executeQuery();
                List<Integer> ids = new ArrayList<>();
                while (rs.next()) ids.add(rs.getInt(1));
                if (!ids.equals(List.of(3, 4))) fail("NULL ids " + ids);
            }

            // A batch (the driver may send it as one bulk command or as executions).
            try (PreparedStatement ps = c.prepareStatement(
                    "INSERT INTO all_types (id, i, vc) VALUES (?, ?, ?)")) {
                for (int k = 40; k < 50; k++) {
                    ps.setInt(1, k);
                    ps.setInt(2, k * 10);
                    ps.setString(3, "batch " + k);
                    ps.addBatch();
                }
                int[] counts = ps.executeBatch();
                if (counts.length != 10) fail("batch counts " + Arrays.toString(counts));
            }
            if (count(c, "id BETWEEN 40 AND 49 AND i = id * 10") != 10) fail("batch rows");
            st.executeUpdate("DELETE FROM all_types WHERE id BETWEEN 40 AND 49");
            log("ok batch insert");

            // Transactions: rollback, then commit.
            c.setAutoCommit(false);
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO all_types (id, vc) VALUES (?, ?)")) {
                ps.setInt(1, 10);
                ps.setString(2, "rolled back");
                ps.executeUpdate();
                c.rollback();
                if (count(c, "id = 10") != 0) fail("rolled-back row is visible");
                ps.setInt(1, 11);
                ps.setString(2, "committed");
                ps.executeUpdate();
                c.commit();
            }
            c.setAutoCommit(true);
            if (count(c, "id = 11 AND vc = 'committed'") != 1) fail("committed row missing");
            c.setAutoCommit(false);
            Savepoint sp = c.setSavepoint("sp1");
            st.executeUpdate("DELETE FROM all_types WHERE id = 11");
            c.rollback(sp);
            if (count(c, "id = 11") != 1) fail("rollback to savepoint");
            st.executeUpdate("DELETE FROM all_types WHERE id = 11");
            c.commit();
            c.setAutoCommit(true);
            if (count(c, "id >= 10") != 0) fail("committed delete");
            log("ok transactions");

            expectErrno("duplicate primary key (prepared)", 1062, () -> {
                try (PreparedStatement ps = c.prepareStatement("INSERT INTO all_types (id) VALUES (?)")) {
                    ps.setInt(1, 1);
                    ps.executeUpdate();
                }
            });
            expectErrno("duplicate unique key (text)", 1062,
                () -> st.executeUpdate("INSERT INTO all_types (id, vc) VALUES (20, '')"));
            expectErrno("missing table (prepared)", 1146, () -> {
                try (PreparedStatement ps = c.prepareStatement("SELECT * FROM nosuch WHERE a = ?")) {
                    ps.setInt(1, 1);
                    ps.executeQuery();
                }
            });
            expectErrno("missing table (text)", 1146, () -> st.executeQuery("SELECT * FROM nosuch"));
            try (PreparedStatement ps = c.prepareStatement("SELECT ? + 1")) {
                ps.setInt(1, 41);
                ResultSet rs = ps.executeQuery();
                rs.next();
                if (rs.getLong(1) != 42) fail("? + 1");
            }
            if (!c.isValid(5)) fail("isValid after errors");
            log("ok errors");

            callable(c, st);

            st.execute("DROP DATABASE drv_connj");
        }
        log("OK connector-j");
    }

    /** CallableStatement: a procedure's result set, then its OUT and INOUT
     *  parameters read back (the binary protocol's OUT-parameter result set). */
    static void callable(Connection c, Statement st) throws SQLException {
        st.execute("CREATE PROCEDURE cj_proc(IN a INT, OUT b VARCHAR(20), INOUT n BIGINT,"
            + " OUT d DECIMAL(6,2), OUT t DATETIME(3)) BEGIN SET b = CONCAT('got ', a);"
            + " SET n = n * 2; SET d = a / 4; SET t = '2024-02-29 12:34:56.789';"
            + " SELECT a + 1 AS nxt; END");
        for (int round = 0; round < 2; round++) {
            try (CallableStatement cs = c.prepareCall("{call cj_proc(?, ?, ?, ?, ?)}")) {
                cs.setInt(1, 7 + round);
                cs.registerOutParameter(2, Types.VARCHAR);
                cs.setLong(3, 21);
                cs.registerOutParameter(3, Types.BIGINT);
                cs.registerOutParameter(4, Types.DECIMAL);
                cs.registerOutParameter(5, Types.TIMESTAMP);
                if (!cs.execute()) fail("callable: no result set");
                ResultSet rs = cs.getResultSet();
                if (!rs.next() || rs.getInt(1) != 8 + round) fail("callable: result set");
                if (!("got " + (7 + round)).equals(cs.getString(2))) fail("callable OUT b: " + cs.getString(2));
                if (cs.getLong(3) != 42) fail("callable INOUT n: " + cs.getLong(3));
                BigDecimal want = new BigDecimal(7 + round).divide(new BigDecimal(4)).setScale(2);
                if (!want.equals(cs.getBigDecimal(4))) fail("callable OUT d: " + cs.getBigDecimal(4));
                String t = cs.getTimestamp(5).toString();
                if (!t.equals("2024-02-29 12:34:56.789")) fail("callable OUT t: " + t);
            }
        }
        st.execute("DROP PROCEDURE cj_proc");
        log("ok callable");
    }

    static void bindOne(PreparedStatement ps, String name, Object v) throws SQLException {
        switch (name) {
            case "ti": ps.setByte(1, (byte) (long) (Long) v); break;
            case "si": ps.setShort(1, (short) (long) (Long) v); break;
            case "tu": case "su": case "mi": case "mu": case "i": case "yr": ps.setInt(1, (int) (long) (Long) v); break;
            case "bu": case "de": ps.setBigDecimal(1, (BigDecimal) v); break;
            case "f": ps.setFloat(1, (Float) v); break;
            case "d": ps.setDouble(1, (Double) v); break;
            case "bl": case "vb": ps.setBytes(1, (byte[]) v); break;
            case "da": ps.setDate(1, java.sql.Date.valueOf((String) v)); break;
            case "dt": case "dt6": case "ts": ps.setTimestamp(1, Timestamp.valueOf((String) v)); break;
            case "c": case "vc": case "tm": case "tm3": ps.setString(1, (String) v); break;
            default: ps.setLong(1, (Long) v);
        }
    }
}
