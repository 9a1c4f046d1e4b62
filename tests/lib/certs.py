"""Certificates for the TLS tests, made on the fly with the `openssl` command.

    from certs import make_pki
    pki = make_pki(tmpdir, extra_ips=["10.0.0.5"])
    pki.ca_cert                  # the CA every server and client trusts
    pki.server_cert, pki.server_key, pki.server_pem (chain + key in one file)
    pki.client("alice")          # a client certificate with CN=alice
    pki.other_ca_cert, pki.other_client_cert, pki.other_client_key
                                 # an unrelated CA and a client it signed

Every file is PEM. The server certificate has subjectAltName DNS:localhost,
IP:127.0.0.1 and the extra IPs, so clients that verify the host name accept
it on loopback. Keys are RSA 2048 without a passphrase unless asked
(`key_password`). `pem_text(path)` reads a file back as text for the inline
properties ssl.keystore.certificate.chain, ssl.keystore.key and
ssl.truststore.certificates; `one_line(pem)` folds it for a .properties file
(Kafka reads the PEM with its line breaks as spaces or escaped \\n; troupe
accepts both).
"""

import os
import subprocess

_DAYS = "2"


def _run(args, cwd):
    subprocess.run(["openssl"] + args, cwd=cwd, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                   timeout=60)


def _key(path, cwd, password=None):
    args = ["genpkey", "-algorithm", "RSA", "-pkeyopt",
            "rsa_keygen_bits:2048", "-out", path]
    if password:
        args += ["-aes256", "-pass", "pass:" + password]
    _run(args, cwd)


def _ca(dir_, name, subject):
    key = os.path.join(dir_, name + "-key.pem")
    cert = os.path.join(dir_, name + ".pem")
    _key(key, dir_)
    _run(["req", "-x509", "-new", "-key", key, "-sha256", "-days", _DAYS,
          "-subj", subject, "-out", cert,
          "-addext", "basicConstraints=critical,CA:TRUE",
          "-addext", "keyUsage=critical,keyCertSign,cRLSign"], dir_)
    return cert, key


def _signed(dir_, name, subject, ca_cert, ca_key, ext_lines,
            key_password=None):
    key = os.path.join(dir_, name + "-key.pem")
    csr = os.path.join(dir_, name + ".csr")
    cert = os.path.join(dir_, name + ".pem")
    ext = os.path.join(dir_, name + ".ext")
    _key(key, dir_, key_password)
    req = ["req", "-new", "-key", key, "-subj", subject, "-out", csr]
    if key_password:
        req += ["-passin", "pass:" + key_password]
    _run(req, dir_)
    with open(ext, "w") as f:
        f.write("\n".join(ext_lines) + "\n")
    _run(["x509", "-req", "-in", csr, "-CA", ca_cert, "-CAkey", ca_key,
          "-CAcreateserial", "-days", _DAYS, "-sha256", "-extfile", ext,
          "-out", cert], dir_)
    return cert, key


def pem_text(path):
    with open(path) as f:
        return f.read()


def one_line(pem):
    """PEM text on one line (line breaks as spaces), for a .properties
    value such as ssl.keystore.key."""
    return " ".join(line for line in pem.strip().splitlines())


class Pki:
    def __init__(self, dir_):
        self.dir = dir_
        self._clients = {}

    def client(self, cn, ou="test", o="troupe", key_password=None):
        """(cert, key) of a client certificate CN=<cn>,OU=<ou>,O=<o> signed
        by the CA (made once per CN)."""
        if cn not in self._clients:
            subject = "/O=%s/OU=%s/CN=%s" % (o, ou, cn)
            self._clients[cn] = _signed(
                self.dir, "client-" + cn, subject, self.ca_cert, self.ca_key,
                ["basicConstraints=CA:FALSE",
                 "keyUsage=critical,digitalSignature,keyEncipherment",
                 "extendedKeyUsage=clientAuth"], key_password)
        return self._clients[cn]

    def client_dn(self, cn, ou="test", o="troupe"):
        """The subject as Java's X500Principal.getName() prints it (RFC
        2253: the most specific RDN first)."""
        return "CN=%s,OU=%s,O=%s" % (cn, ou, o)


def make_pki(dir_, extra_ips=(), server_key_password=None):
    """A CA, a server certificate for localhost/127.0.0.1 (+ extra_ips),
    a client certificate CN=client, and an unrelated CA with its own
    client certificate CN=intruder. Returns a Pki with the paths."""
    os.makedirs(dir_, exist_ok=True)
    p = Pki(dir_)
    p.ca_cert, p.ca_key = _ca(dir_, "ca", "/O=troupe/CN=troupe test CA")
    san = ["DNS:localhost", "IP:127.0.0.1"] + ["IP:" + ip for ip in extra_ips]
    p.server_cert, p.server_key = _signed(
        dir_, "server", "/O=troupe/CN=localhost", p.ca_cert, p.ca_key,
        ["basicConstraints=CA:FALSE",
         "keyUsage=critical,digitalSignature,keyEncipherment",
         "extendedKeyUsage=serverAuth,clientAuth",
         "subjectAltName=" + ",".join(san)], server_key_password)
    p.server_key_password = server_key_password
    # ssl.keystore.location: the chain and the key in one PEM file.
    p.server_pem = os.path.join(dir_, "server-keystore.pem")
    with open(p.server_pem, "w") as f:
        f.write(pem_text(p.server_cert) + pem_text(p.ca_cert)
                + pem_text(p.server_key))
    p.server_chain = os.path.join(dir_, "server-chain.pem")
    with open(p.server_chain, "w") as f:
        f.write(pem_text(p.server_cert) + pem_text(p.ca_cert))
    p.client_cert, p.client_key = p.client("client")
    p.other_ca_cert, p.other_ca_key = _ca(dir_, "other-ca",
                                          "/O=elsewhere/CN=another CA")
    p.other_client_cert, p.other_client_key = _signed(
        dir_, "intruder", "/O=elsewhere/CN=intruder", p.other_ca_cert,
        p.other_ca_key,
        ["basicConstraints=CA:FALSE",
         "keyUsage=critical,digitalSignature,keyEncipherment",
         "extendedKeyUsage=clientAuth"])
    return p


if __name__ == "__main__":
    import sys
    import tempfile
    d = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp()
    pki = make_pki(d, extra_ips=["10.1.2.3"])
    for k in sorted(vars(pki)):
        if not k.startswith("_"):
            print(k, getattr(pki, k))
    print(pki.client("alice"))
