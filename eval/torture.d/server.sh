# shellcheck shell=bash
# The server's hostile cases (issue 68), sourced by eval/torture.sh: an
# unauthorised large upload, an update from the command line while serving,
# symbolic links in the documents directory, idle and slow connections with a
# low file limit, a stop with a request left hanging, a check past its time,
# and writes onto a file or a directory. Every server listens on a free
# loopback port, lives at most 300 s (timeout -s KILL) and is killed at the
# end of its case.

srv=$tmp/serve
mkdir -p "$srv"
printf 'torture-token\n' >"$srv/token"
srv_pids=()

# srv_fresh_archive DIR: DIR/docs (the fixture sources) and its index DIR/idx.
srv_fresh_archive() {
    mkdir -p "$1/docs"
    cp "$root"/corpus-fixtures/pan/source-documents/*.txt "$1/docs/"
    "$bin" index create --docs "$1/docs" --index "$1/idx" --quiet 2>/dev/null
}

# srv_start INDEX DOCS ARGS...: serves INDEX on a free loopback port until
# /healthz answers (at most 30 s); sets srv_url and srv_pid (the server's own pid).
srv_start() {
    local index=$1 docs=$2 port i
    shift 2
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    srv_url=http://127.0.0.1:$port
    timeout -s KILL 300 "$bin" serve --index "$index" --docs "$docs" --listen "127.0.0.1:$port" "$@" 2>>"$srv/log" &
    srv_pid=$!
    srv_pids+=("$srv_pid")
    for ((i = 0; i < 300; i++)); do
        curl -s -o /dev/null --max-time 1 "$srv_url/healthz" && break
        sleep 0.1
    done
    # The server itself, not the timeout command around it.
    srv_pid=$(pgrep -P "$srv_pid" || echo "$srv_pid")
    srv_pids+=("$srv_pid")
    srv_port=$port
}

# srv_stop: kills the last server started (SIGKILL) and waits for it.
srv_stop() {
    kill -KILL "$srv_pid" 2>/dev/null
    wait "${srv_pids[-2]}" 2>/dev/null
    return 0
}

# srv_status METHOD PATH [CURL ARGS...]: the HTTP status of a request (000: none).
srv_status() {
    local method=$1 path=$2
    shift 2
    curl -s -o "$srv/body" -w '%{http_code}' --max-time 20 -X "$method" "$@" "$srv_url$path"
}

# srv_kb FIELD: the server's VmRSS or VmHWM in kB.
srv_kb() { awk -v f="$1:" '$1 == f { print $2 }' "/proc/$srv_pid/status"; }

auth=(-H "Authorization: Bearer torture-token")

begin "server: unauthorised 60 MB uploads"
srv_fresh_archive "$srv/a"
head -c $((60 << 20)) /dev/zero | tr '\0' 'a' >"$srv/big.txt"
srv_start "$srv/a/idx" "$srv/a/docs" --token-file "$srv/token" --read-token-file "$srv/token"
before=$(srv_kb VmRSS)
t0=$(date +%s%N)
uploads=()
for i in $(seq 10); do
    curl -s -o /dev/null -w '%{http_code}\n' --max-time 20 -H 'Expect:' -X PUT --data-binary @"$srv/big.txt" \
        "$srv_url/documents/big-$i.txt" >"$srv/put.$i" &
    uploads+=($!)
done
curl -s -o /dev/null -w '%{http_code}\n' --max-time 20 -H 'Expect:' --data-binary @"$srv/big.txt" \
    "$srv_url/check" >"$srv/put.check" &
uploads+=($!)
wait "${uploads[@]}" 2>/dev/null
took=$((($(date +%s%N) - t0) / 1000000))
peak=$(srv_kb VmHWM)
for f in "$srv"/put.*; do
    outcome "$([[ $(cat "$f") == 401 ]] && echo 1)" "$(basename "$f"): status $(cat "$f") (expected 401)"
done
outcome "$((took < 5000 ? 1 : 0))" "11 unauthorised uploads answered after $took ms"
outcome "$(((peak - before) < 100000 ? 1 : 0))" "memory grew from $before kB to a peak of $peak kB"
notes+=("server: 11 unauthorised 60 MB uploads answered 401 in $took ms; VmRSS $before kB before, VmHWM $peak kB")
srv_stop
rm -f "$srv/big.txt"
end

begin "server: CLI index update while serving"
srv_start "$srv/a/idx" "$srv/a/docs" --token-file "$srv/token"
cp "$root/corpus-fixtures/pan/suspicious-documents/suspicious-document00001.txt" "$srv/a/docs/added.txt"
rm "$srv/a/docs/source-document00002.txt"
pd index update --docs "$srv/a/docs" --index "$srv/a/idx" --quiet
generation=$(curl -s --max-time 10 "$srv_url/healthz" | python3 -c 'import json, sys; print(json.load(sys.stdin)["generation"])')
outcome "$([[ $generation == 2 ]] && echo 1)" "/healthz says generation $generation after the update (expected 2)"
for doc in added.txt source-document00001.txt; do
    status=$(srv_status GET "/documents/$doc/similar")
    outcome "$([[ $status == 200 ]] && echo 1)" "similar $doc: $status $(head -c 200 "$srv/body")"
done
status=$(srv_status GET /documents/source-document00002.txt/similar)
outcome "$([[ $status == 404 ]] && echo 1)" "similar of the removed document: $status (expected 404)"
srv_stop
end

begin "server: symbolic links in the documents"
mkdir -p "$srv/outside"
echo "not the archive's" >"$srv/outside/victim.txt"
ln -s "$srv/outside" "$srv/a/docs/shared"
ln -s "$srv/outside/victim.txt" "$srv/a/docs/linked.txt"
srv_start "$srv/a/idx" "$srv/a/docs" --token-file "$srv/token"
for doc in shared/victim.txt shared/planted.txt shared/new/planted.txt linked.txt; do
    status=$(srv_status PUT "/documents/$doc" "${auth[@]}" --data-binary 'planted through a link')
    outcome "$([[ $status == 409 ]] && echo 1)" "PUT $doc: $status $(head -c 200 "$srv/body")"
    status=$(srv_status DELETE "/documents/$doc" "${auth[@]}")
    outcome "$([[ $status == 409 ]] && echo 1)" "DELETE $doc: $status $(head -c 200 "$srv/body")"
done
outcome "$([[ $(cat "$srv/outside/victim.txt") == "not the archive's" && $(ls "$srv/outside" | wc -l) == 1 ]] && echo 1)" \
    "the directory outside the archive changed: $(ls "$srv/outside")"
srv_stop
rm "$srv/a/docs/shared" "$srv/a/docs/linked.txt"
end

begin "server: writes onto a file or a directory"
mkdir -p "$srv/a/docs/folder.txt"
srv_start "$srv/a/idx" "$srv/a/docs" --token-file "$srv/token"
status=$(srv_status PUT /documents/good.txt "${auth[@]}" --data-binary 'a good document')
outcome "$([[ $status == 201 ]] && echo 1)" "PUT good.txt: $status"
for doc in good.txt/x.txt good.txt/deeper/x.txt folder.txt; do
    status=$(srv_status PUT "/documents/$doc" "${auth[@]}" --data-binary 'text')
    outcome "$([[ $status == 409 ]] && echo 1)" "PUT $doc: $status $(head -c 200 "$srv/body") (expected 409)"
done
srv_stop
end

begin "server: idle and slow connections"
# A low file limit: 40 idle connections must not lock everyone out for long.
(
    ulimit -n 48
    srv_start "$srv/a/idx" "$srv/a/docs" --token-file "$srv/token" --header-timeout 2 --body-timeout 2 --shutdown-grace 2
    echo "$srv_url $srv_pid ${srv_pids[-2]} $srv_port" >"$srv/limited"
)
read -r srv_url srv_pid timeout_pid srv_port <"$srv/limited"
srv_pids+=("$timeout_pid" "$srv_pid")
fds=()
for i in $(seq 40); do
    exec {fd}<>"/dev/tcp/127.0.0.1/$srv_port" && fds+=("$fd")
done
t0=$(date +%s%N)
status=$(curl -s -o /dev/null -w '%{http_code}' --max-time 15 --retry 5 --retry-connrefused --retry-delay 1 "$srv_url/healthz")
took=$((($(date +%s%N) - t0) / 1000000))
outcome "$([[ $status == 200 ]] && ((took < 8000)) && echo 1)" "/healthz with 40 idle connections: $status after $took ms"
for fd in "${fds[@]}"; do exec {fd}>&-; done
# Nothing sent, half the headers, a body cut short: each closed within the timeouts.
for what in silent half-headers short-body; do
    exec {fd}<>"/dev/tcp/127.0.0.1/$srv_port"
    case $what in
        half-headers) printf 'GET /healthz HTTP/1.1\r\nHost: x\r\n' >&"$fd" ;;
        short-body) printf 'PUT /documents/slow.txt HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer torture-token\r\nContent-Length: 1000\r\n\r\nsome' >&"$fd" ;;
    esac
    t0=$(date +%s%N)
    answer=$(timeout 20 cat <&"$fd" | head -c 100 | tr -d '\r' | head -1)
    took=$((($(date +%s%N) - t0) / 1000000))
    exec {fd}>&-
    outcome "$((took < 5000 ? 1 : 0))" "$what connection open for $took ms (answer: $answer)"
done
# A stop with a request left hanging ends within the grace.
exec {fd}<>"/dev/tcp/127.0.0.1/$srv_port"
printf 'PUT /documents/hang.txt HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer torture-token\r\nContent-Length: 1000\r\n\r\nsome' >&"$fd"
sleep 0.3
t0=$(date +%s%N)
kill -TERM "$srv_pid"
for ((i = 0; i < 100; i++)); do
    kill -0 "$srv_pid" 2>/dev/null || break
    sleep 0.1
done
took=$((($(date +%s%N) - t0) / 1000000))
exec {fd}>&-
outcome "$((took < 4000 ? 1 : 0))" "SIGTERM with a hanging request: stopped after $took ms (grace 2 s)"
kill -KILL "$srv_pid" 2>/dev/null
end

begin "server: a check past its time"
# The 20 MB corpus's sources as the archive, all of them as one upload.
cp -rp "$tmp/idx-a" "$srv/idx-big"
cat "$docs_a"/* >"$srv/long.txt"
srv_start "$srv/idx-big" "$docs_a" --workers 1 --timeout 1
t0=$(date +%s%N)
status=$(srv_status POST /check --data-binary @"$srv/long.txt")
took=$((($(date +%s%N) - t0) / 1000000))
outcome "$([[ $status == 503 ]] && echo 1)" "the long check: $status after $took ms (expected 503)"
t0=$(date +%s%N)
status=$(srv_status POST /check --data-binary @"$probe")
took=$((($(date +%s%N) - t0) / 1000000))
outcome "$([[ $status == 200 ]] && echo 1)" "the next check: $status after $took ms (expected 200 within the 1 s timeout)"
notes+=("server: after a check stopped at 1 s, the next one was answered $status in $took ms")
srv_stop
end

# Every server and timeout command started here, by id.
for pid in "${srv_pids[@]}"; do
    kill -KILL "$pid" 2>/dev/null
done
