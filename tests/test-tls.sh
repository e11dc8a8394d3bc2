#!/bin/bash
# test-tls.sh SIGCRAWL [FIXTURE] — crawling behind one's own CA ([crawl] ca_file,
# ca_path, client_cert, client_key): a CA, a server certificate for
# tls.test and a client certificate, all made here with the openssl CLI;
# `openssl s_server -WWW` serves a page over TLS on 127.0.0.1.  Without
# the CA the fetch is a TLS error; with ca_file or ca_path it is fetched;
# a server that asks for a client certificate refuses the crawl without
# client_cert and client_key and serves it with them.
set -u
sigcrawl=$1
. "$(dirname "$0")/lib.sh"
spids=()
on_exit()
{
	local p
	for p in "${spids[@]}"; do kill "$p" 2>/dev/null; done
}
cd "$tmp" || exit 1

ossl() { openssl "$@" >/dev/null 2>&1; }
ossl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=sigcrawl test CA" \
	-keyout ca.key -out ca.pem
ossl req -newkey rsa:2048 -nodes -subj "/CN=tls.test" -keyout srv.key -out srv.csr
printf 'subjectAltName=DNS:tls.test\n' >srv.ext
ossl x509 -req -in srv.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 \
	-extfile srv.ext -out srv.pem
ossl req -newkey rsa:2048 -nodes -subj "/CN=sigcrawl client" -keyout cli.key -out cli.csr
ossl x509 -req -in cli.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 -out cli.pem
check_true "openssl made the CA, the server's and the client's certificates" test -s srv.pem -a -s cli.pem
mkdir certs
cp ca.pem certs/
ossl rehash certs || c_rehash certs >/dev/null 2>&1
check_true "openssl rehash named the CA by its hash" test "$(ls certs | grep -c '\.0$')" -eq 1

mkdir www
printf '<html><head><title>behind my CA</title></head><body>hello</body></html>\n' >www/index.html

# serve_tls PORTFILE [s_server options] — s_server on a free port.
serve_tls()
{
	local pf=$1 p
	shift
	for p in $(shuf -i 20000-60000 -n 20); do
		(cd www && exec openssl s_server -accept "127.0.0.1:$p" -cert ../srv.pem \
			-key ../srv.key -WWW -quiet "$@" </dev/null >/dev/null 2>&1) &
		local pid=$!
		sleep 0.3
		if kill -0 "$pid" 2>/dev/null; then
			spids+=("$pid")
			echo "$p" >"$pf"
			return 0
		fi
	done
	return 1
}
serve_tls port1
port=$(cat port1)
serve_tls port2 -Verify 1 -CAfile ../ca.pem
cport=$(cat port2)
echo "https://tls.test/index.html" >seeds

# crawl NAME PORT [config lines] — a crawl of the page into store-NAME;
# its record into rec-NAME.
crawl()
{
	local name=$1 p=$2
	shift 2
	# One try: a TLS failure holds the host, and retries would only wait.
	printf '%s\n' "[crawl]" "host_retries = 0" "$@" >"$name.conf"
	"$sigcrawl" crawl -c "$name.conf" --store "store-$name" --seeds seeds \
		--connect-to "tls.test:443:127.0.0.1:$p" --no-robots --quiet \
		--timeout-s 5 >/dev/null 2>"err-$name"
	"$sigcrawl" export --store "store-$name" >"rec-$name"
}
crawl none "$port"
check_true "without the CA: a TLS error" grep -q '"error":"tls"' rec-none
crawl file "$port" "ca_file = ca.pem"
check_true "ca_file: fetched, 200" grep -q '"status":200' rec-file
check_true "ca_file: its title" grep -q '"title":"behind my CA"' rec-file
crawl dir "$port" "ca_path = certs"
check_true "ca_path: fetched, 200" grep -q '"status":200' rec-dir
crawl nocert "$cport" "ca_file = ca.pem"
check_true "a server that wants a client certificate, none given: not fetched" test "$(grep -c '"status":200' rec-nocert)" -eq 0
crawl cert "$cport" "ca_file = ca.pem" "client_cert = cli.pem" "client_key = cli.key"
check_true "client_cert and client_key: fetched, 200" grep -q '"status":200' rec-cert
finish
