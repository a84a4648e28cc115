"""Writes secrets_labelled.jsonl: real-looking secrets of many kinds, each in a sentence an
agent might store, and look-alikes that must come through untouched (git remotes, ssh
targets, shell fixes after the word "passphrase", hashes, UUIDs, versions, URLs without
credentials, image digests, references to secrets that are not secrets).

    python tests/data/make_secrets_labelled.py     # rewrites the file (seeded: same output)

A line: {"label": "secret"|"lookalike", "kind", "text", "secret"?}; `secret` is the part
that must not survive redaction. Token bodies are random; their shapes follow the
providers' published formats. None of them is a live credential.
"""

from __future__ import annotations

import base64
import hashlib
import json
import random
import string
import uuid
from pathlib import Path

rng = random.Random(20261130)
ALNUM = string.ascii_letters + string.digits
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "-_"
HEX = "0123456789abcdef"


def pick(chars: str, n: int) -> str:
    return "".join(rng.choice(chars) for _ in range(n))


def mixed(n: int) -> str:
    """A random token with letters of both cases and digits (as real keys have)."""
    while True:
        s = pick(ALNUM, n)
        if any(c.islower() for c in s) and any(c.isupper() for c in s) and sum(c.isdigit() for c in s) >= 2:
            return s


def password() -> str:
    words = ["correct", "horse", "battery", "staple", "maple", "river", "tiger", "orbit", "velvet", "lantern"]
    forms = [
        lambda: rng.choice(
            [
                "Tr0ub4dor&3",
                "hunter2",
                "P@ssw0rd!2024",
                "letmein123",
                "S3cure!pass",
                "Qw3rty#99",
                "Summer2024!",
                "dragon#77",
                "Zx9!mK2#pL",
                "ilovecats42",
            ]
        ),
        lambda: "-".join(rng.sample(words, 4)),
        lambda: pick(ALNUM + "!#%&*+=?@^_~", rng.randint(10, 18)),
        lambda: rng.choice(words).capitalize() + str(rng.randint(10, 9999)) + rng.choice("!#$%&*?"),
    ]
    return rng.choice(forms)()


def aws_secret() -> str:
    while True:
        s = pick(B64, 40)
        if any(c.isupper() for c in s) and any(c.islower() for c in s) and any(c.isdigit() for c in s):
            return s


def jwt() -> str:
    def seg(obj):
        return base64.urlsafe_b64encode(json.dumps(obj).encode()).decode().rstrip("=")

    return ".".join(
        [
            seg({"alg": "HS256", "typ": "JWT"}),
            seg(
                {
                    "sub": str(rng.randint(10**6, 10**9)),
                    "name": rng.choice(["ops", "ci", "alice"]),
                    "iat": rng.randint(1_600_000_000, 1_800_000_000),
                }
            ),
            pick(URLSAFE, 43),
        ]
    )


def pem(kind: str) -> str:
    body = "\n".join(pick(B64, 64) for _ in range(rng.randint(4, 8)))
    return f"-----BEGIN {kind}PRIVATE KEY-----\n{body}\n{pick(B64, 20)}==\n-----END {kind}PRIVATE KEY-----"


SECRETS: dict[str, tuple] = {
    "aws_access_key_id": (
        lambda: rng.choice(["AKIA", "ASIA"]) + pick(string.ascii_uppercase + "234567", 16),
        [
            "aws configure set aws_access_key_id {s} --profile backup",
            "The nightly backup job authenticates as {s} (IAM user backup-bot)",
            "export AWS_ACCESS_KEY_ID={s}",
            "Rotated the CI key; new one is {s}",
            "S3 upload failed with AccessDenied for {s} on bucket prod-logs",
            "在 GitHub Actions 里配置了 {s} 作为部署用的 AK",
            "terraform plan used {s}, which belongs to the old account",
            "boto3 picked up {s} from ~/.aws/credentials instead of the role",
        ],
    ),
    "aws_secret_access_key": (
        aws_secret,
        [
            "aws_secret_access_key = {s}",
            "export AWS_SECRET_ACCESS_KEY={s}",
            "The secret key for the backup bot is {s}",
            "AWS secret access key: {s} (rotate in March)",
            "Set SECRET_ACCESS_KEY={s} in the staging .env",
            "secret_key: {s}",
            "SecretAccessKey: {s}",
            "The backup user's aws_secret_access_key is {s}",
        ],
    ),
    "github_token": (
        lambda: rng.choice(["ghp_", "gho_", "ghs_", "ghu_"]) + mixed(36),
        [
            "Use {s} to push to the deploy fork",
            "GITHUB_TOKEN={s} gh pr create --fill",
            "git clone https://x-access-token:{s}@github.com/acme/infra.git",
            "The release workflow needs {s} with repo scope",
            "My personal access token is {s}",
            "gh auth login --with-token <<< {s}",
            "CI 用的 token：{s}",
            "token {s} expired on Friday, CI went red",
        ],
    ),
    "github_fine_grained_pat": (
        lambda: "github_pat_" + mixed(22) + "_" + mixed(59),
        [
            "Fine-grained PAT for the docs repo: {s}",
            "export GH_TOKEN={s}",
            "renovate runs with {s}",
            "Use {s} for the package registry (read:packages)",
            "New PAT {s} only has contents:write",
            "npm config set //npm.pkg.github.com/:_authToken {s}",
        ],
    ),
    "gitlab_token": (
        lambda: "glpat-" + pick(URLSAFE, 20),
        [
            "GitLab token {s} for the mirror job",
            "git remote set-url origin https://oauth2:{s}@gitlab.example.com/group/app.git",
            "PRIVATE-TOKEN: {s}",
            "The runner registration used {s}",
            "glab auth login --token {s}",
            "gitlab 的访问令牌是 {s}",
        ],
    ),
    "slack_token": (
        lambda: (
            rng.choice(["xoxb-", "xoxp-", "xoxa-"])
            + "-".join([str(rng.randint(10**10, 10**12)), str(rng.randint(10**10, 10**12)), mixed(24)])
        ),
        [
            "Slack bot token {s} posts to #deploys",
            "SLACK_BOT_TOKEN={s}",
            "The alert bot uses {s}; it lost chat:write yesterday",
            "curl -H 'Authorization: Bearer {s}' https://slack.com/api/auth.test",
            "Slack user token: {s}",
        ],
    ),
    "slack_webhook": (
        lambda: (
            "https://hooks.slack.com/services/T"
            + pick(string.ascii_uppercase + string.digits, 8)
            + "/B"
            + pick(string.ascii_uppercase + string.digits, 10)
            + "/"
            + mixed(24)
        ),
        [
            "Alerts go to {s}",
            "SLACK_WEBHOOK_URL={s}",
            "The deploy notifier posts to {s} (channel #ops)",
            "webhook: {s}",
        ],
    ),
    "stripe_key": (
        lambda: rng.choice(["sk_live_", "rk_live_", "sk_test_"]) + mixed(rng.randint(24, 32)),
        [
            "Stripe secret key {s} is only on the payments host",
            "STRIPE_SECRET_KEY={s}",
            'stripe.api_key = "{s}"',
            "Refunds failed because {s} is a restricted key",
            "Stripe 的密钥 {s} 只能放在服务器上",
            "Webhook signing uses {s} in staging",
        ],
    ),
    "openai_key": (
        lambda: rng.choice(["sk-proj-" + pick(URLSAFE, 48), "sk-" + mixed(48), "sk-svcacct-" + pick(URLSAFE, 40)]),
        [
            "OPENAI_API_KEY={s}",
            "The eval harness calls the API with {s}",
            "openai.api_key = '{s}'",
            "Use {s} for the embeddings batch job",
            "key for the summariser: {s}",
            "我的 OpenAI key 是 {s}",
        ],
    ),
    "anthropic_key": (
        lambda: "sk-ant-api03-" + pick(URLSAFE, 93) + "AA",
        [
            "ANTHROPIC_API_KEY={s}",
            "The agent runner uses {s}",
            "Claude key for staging: {s}",
            'client = Anthropic(api_key="{s}")',
        ],
    ),
    "google_api_key": (
        lambda: "AIza" + pick(URLSAFE, 35),
        [
            "Maps API key {s} is restricted to the web app",
            "GOOGLE_API_KEY={s}",
            "https://maps.googleapis.com/maps/api/geocode/json?address=Berlin&key={s}",
            'Firebase config apiKey: "{s}"',
            "The translate job uses {s}",
        ],
    ),
    "jwt": (
        jwt,
        [
            "Authorization: Bearer {s}",
            "The session cookie held {s}",
            "Debugging with token {s} from the staging login",
            "access_token={s}",
            'curl -H "Authorization: Bearer {s}" https://api.internal/v1/me',
        ],
    ),
    "private_key": (
        lambda: pem(rng.choice(["RSA ", "EC ", "OPENSSH ", ""])),
        [
            "The deploy key is\n{s}",
            "Put this in ~/.ssh/id_deploy:\n{s}",
            "TLS key for the staging ingress:\n{s}\nand the cert is in the repo",
            "{s}",
        ],
    ),
    "url_credentials": (
        lambda: rng.choice(
            [
                f"postgresql://app:{password()}@db.internal:5432/app",
                f"mongodb+srv://admin:{password()}@cluster0.x1y2z.mongodb.net/prod",
                f"redis://:{password()}@cache.internal:6379/0",
                f"https://deploy:{mixed(20)}@registry.example.com/v2/",
                f"amqp://worker:{password()}@rabbit.internal:5672/jobs",
                f"mysql://root:{password()}@127.0.0.1:3306/shop",
            ]
        ),
        [
            "DATABASE_URL={s}",
            "Connect with {s}",
            "The worker reads {s} from the env",
            "连接串是 {s}",
            "psql {s} -c 'select 1' works from the bastion",
        ],
    ),
    "password_assignment": (
        password,
        [
            "password: {s}",
            "DB_PASSWORD={s}",
            "The staging admin password is {s}",
            "my password is {s}",
            "Wi-Fi password for the office: {s}",
            "PGPASSWORD={s} psql -h db -U app",
            "mysql -u root --password={s} shop",
            "数据库密码是 {s}",
            "密码：{s}",
            "root passwd = {s}",
            "The SSH key passphrase is {s}",
            "passphrase: {s}",
            '"password": "{s}"',
            "admin_password: '{s}'",
        ],
    ),
    "api_key_assignment": (
        lambda: rng.choice([mixed(32), pick(HEX, 32), pick(URLSAFE, 40), mixed(24)]),
        [
            "api_key = {s}",
            "X-API-Key: {s}",
            "The weather service API key is {s}",
            "SENTRY_AUTH_TOKEN={s}",
            "apiKey: '{s}'",
            "client_secret={s}",
            "DATADOG_API_KEY={s}",
            "access_token: {s}",
            "API 密钥：{s}",
            "refresh_token={s}",
        ],
    ),
    "basic_auth_header": (
        lambda: base64.b64encode(f"{rng.choice(['admin', 'ci', 'deploy'])}:{password()}".encode()).decode(),
        [
            "Authorization: Basic {s}",
            "curl -H 'Authorization: Basic {s}' https://jenkins.internal/api/json",
            "The probe sends Authorization: Basic {s}",
        ],
    ),
    "package_registry_token": (
        lambda: rng.choice(["npm_" + mixed(36), "pypi-AgEIcHlwaS5vcmc" + pick(URLSAFE, 70), "hf_" + mixed(34)]),
        [
            "NPM_TOKEN={s}",
            "twine upload -u __token__ -p {s} dist/*",
            "Publishing uses {s}",
            "HF_TOKEN={s} for the gated model",
            "//registry.npmjs.org/:_authToken={s}",
        ],
    ),
    "other_provider_token": (
        lambda: rng.choice(
            [
                "SG." + pick(URLSAFE, 22) + "." + pick(URLSAFE, 43),
                "SK" + pick(HEX, 32),
                "dop_v1_" + pick(HEX, 64),
                "shpat_" + pick(HEX, 32),
                "lin_api_" + mixed(40),
                "dapi" + pick(HEX, 32),
                str(rng.randint(10**8, 10**10 - 1)) + ":AA" + pick(URLSAFE, 33),
                "AGE-SECRET-KEY-1" + pick(string.ascii_uppercase + string.digits, 58),
            ]
        ),
        [
            "Token for the integration: {s}",
            "export INTEGRATION_TOKEN={s}",
            "The mailer authenticates with {s}",
            "Use {s} when the bot needs to post",
            "kept {s} in the old .env by mistake",
        ],
    ),
    "azure_connection_string": (
        lambda: (
            "DefaultEndpointsProtocol=https;AccountName=acmelogs;AccountKey="
            + pick(B64, 86)
            + "==;EndpointSuffix=core.windows.net"
        ),
        [
            'AZURE_STORAGE_CONNECTION_STRING="{s}"',
            "The log shipper uses {s}",
            "Storage connection: {s}",
        ],
    ),
}


def sha(n: int) -> str:
    return hashlib.sha256(str(rng.random()).encode()).hexdigest()[:n]


def host() -> str:
    return rng.choice(["github.com", "gitlab.example.com", "git.internal", "bitbucket.org", "code.acme.io"])


LOOKALIKES: dict[str, tuple] = {
    "git_remote": (
        lambda: rng.choice(
            [
                f"git@{host()}:{rng.choice(['acme', 'platform', 'group/sub'])}/{rng.choice(['infra', 'app', 'docs'])}.git",
                f"ssh://git@{host()}:2222/acme/app.git",
                f"git@{host()}:acme/{rng.choice(['billing', 'hindsight', 'web'])}",
            ]
        ),
        [
            "git remote add upstream {s}",
            "Cloned {s} into ~/src",
            "origin is {s}; push there, not to the fork",
            "The mirror job pulls from {s} every hour",
            "git clone {s} && cd app && make",
            "远程仓库地址改成了 {s}",
            "submodule url = {s}",
            "Add the deploy key to {s} before the first push",
        ],
    ),
    "ssh_target": (
        lambda: (
            f"{rng.choice(['deploy', 'ubuntu', 'ec2-user', 'admin', 'git'])}@"
            + rng.choice(
                [
                    "10.0.3.7",
                    "bastion.internal",
                    "ec2-3-88-12-4.compute-1.amazonaws.com",
                    "build-01.corp.example.com",
                    "nas.local",
                    "jump.acme.io",
                ]
            )
        ),
        [
            "ssh {s} to restart the worker",
            "scp dist/app.tar.gz {s}:/srv/releases/",
            "rsync -av ./backup/ {s}:/data/backup/",
            "ssh -i ~/.ssh/deploy_ed25519 -p 2222 {s}",
            "ssh -J {s} app-02",
            "sftp {s} then get the logs",
            "ssh-copy-id {s}",
        ],
    ),
    "passphrase_shell": (
        lambda: "",
        [
            "When ssh asks for the passphrase: run ssh-add --apple-use-keychain ~/.ssh/id_ed25519",
            "passphrase prompt loops forever; fix: eval $(ssh-agent -s) && ssh-add ~/.ssh/id_ed25519",
            "If the key passphrase is requested again, run `ssh-add -l` to see what the agent holds",
            "GPG passphrase: use gpg-connect-agent reloadagent /bye after changing pinentry",
            'passphrase=$(pass show work/ssh) ssh-add - <<< "$passphrase" is how the script unlocks it',
            "The passphrase is cached by gpg-agent for 8 hours (default-cache-ttl 28800)",
            "Removed the passphrase with ssh-keygen -p -f ~/.ssh/id_rsa",
            "ssh-keygen -t ed25519 -N '' -f ./ci_key creates a key with an empty passphrase",
            "Passphrase: see 1Password item 'deploy key' (never paste it here)",
            "The passphrase is stored in the macOS keychain, so it only asks once",
        ],
    ),
    "commit_sha": (
        lambda: sha(rng.choice([7, 8, 12, 40])),
        [
            "Reverted {s} because it broke the migrations",
            "git cherry-pick {s}",
            "The regression started at commit {s}",
            "bisect points at {s}",
            "Deployed {s} to production at 14:05",
            "HEAD is at {s} after the rebase",
            "fixup! for {s}",
            "提交 {s} 引入了这个问题",
        ],
    ),
    "hash_digest": (
        lambda: rng.choice(
            [
                hashlib.sha256(str(rng.random()).encode()).hexdigest(),
                hashlib.md5(str(rng.random()).encode()).hexdigest(),
                "sha384-" + base64.b64encode(hashlib.sha384(str(rng.random()).encode()).digest()).decode(),
                "sha512-" + base64.b64encode(hashlib.sha512(str(rng.random()).encode()).digest()).decode(),
                "sha1:" + hashlib.sha1(str(rng.random()).encode()).hexdigest(),
            ]
        ),
        [
            "Checksum of the release tarball: {s}",
            "package-lock integrity {s}",
            "md5sum of the dump matches: {s}",
            '<script src="/app.js" integrity="{s}"></script>',
            "The cache key is {s}",
            "文件校验值 {s}",
            "sha256sum app.tar.gz: {s}",
            'ETag: "{s}"',
            "content hash {s} unchanged since Monday",
        ],
    ),
    "uuid_or_trace_id": (
        lambda: rng.choice([str(uuid.UUID(int=rng.getrandbits(128))), uuid.UUID(int=rng.getrandbits(128)).hex]),
        [
            "Memory {s} was superseded",
            "request id {s} timed out at the gateway",
            "traceparent 00-{s}-00f067aa0ba902b7-01",
            "Job {s} failed after 3 retries",
            "The tenant id is {s}",
            "Idempotency-Key: {s}",
            "memory_id={s}",
            "会话 {s} 已结束",
        ],
    ),
    "version_string": (
        lambda: rng.choice(
            [
                f"{rng.randint(0, 20)}.{rng.randint(0, 30)}.{rng.randint(0, 99)}",
                f"v{rng.randint(1, 9)}.{rng.randint(0, 20)}.{rng.randint(0, 9)}-rc.{rng.randint(1, 5)}+build.{rng.randint(100, 99999)}",
                f"{rng.randint(2019, 2026)}.{rng.randint(1, 12):02d}.{rng.randint(1, 28):02d}.{rng.randint(1, 9)}",
                f"1.{rng.randint(60, 95)}.0-nightly ({sha(9)} {rng.randint(2023, 2026)}-0{rng.randint(1, 9)}-1{rng.randint(0, 9)})",
            ]
        ),
        [
            "Upgraded to {s} and the warning went away",
            "pin numpy=={s} until scipy catches up",
            "node {s} breaks the build; stay on 20",
            "Release {s} is tagged",
            "rustc {s}",
            "python -m pip install httpx=={s}",
            "Chrome {s} fixed the rendering bug",
            "版本 {s} 已发布",
        ],
    ),
    "url_without_credentials": (
        lambda: rng.choice(
            [
                f"https://github.com/acme/app/pull/{rng.randint(1, 9999)}",
                f"https://api.example.com/v1/users?page={rng.randint(1, 9)}&token_type=bearer",
                "postgresql://localhost:5432/app",
                "https://docs.python.org/3/library/secrets.html#module-secrets",
                f"https://grafana.internal/d/{sha(8)}/api-latency?orgId=1&from=now-6h",
                "redis://cache.internal:6379/0",
                f"https://{host()}/acme/app/-/jobs/{rng.randint(10**6, 10**8)}",
                "https://user@example.com/path",
            ]
        ),
        [
            "See {s} for the details",
            "The dashboard is at {s}",
            "DATABASE_URL={s} for local runs",
            "Linked {s} in the ticket",
            "链接：{s}",
            "curl -s {s} | jq .",
            "Webhook target: {s}",
            "opened {s} in the browser",
        ],
    ),
    "image_digest": (
        lambda: rng.choice(
            [
                f"python:3.11-slim@sha256:{hashlib.sha256(str(rng.random()).encode()).hexdigest()}",
                f"ghcr.io/acme/app:{rng.randint(1, 3)}.{rng.randint(0, 20)}.{rng.randint(0, 9)}",
                f"registry.example.com/team/worker@sha256:{hashlib.sha256(str(rng.random()).encode()).hexdigest()}",
            ]
        ),
        [
            "Pinned the base image to {s}",
            "docker pull {s}",
            "FROM {s}",
            "The deploy rolled out {s}",
            "image: {s}",
            "Trivy scanned {s}: 0 critical",
        ],
    ),
    "secret_reference": (
        lambda: "",
        [
            "password: ${DB_PASSWORD}",
            "token: ${{ secrets.GITHUB_TOKEN }}",
            "api_key = os.environ['OPENAI_API_KEY']",
            "PGPASSWORD=$(cat /run/secrets/pg_password) psql -h db",
            "export AWS_SECRET_ACCESS_KEY=$(vault kv get -field=secret aws/ci)",
            "client_secret: <from the vault, path kv/oauth/web>",
            "password_file: /etc/app/db.pass",
            "The API key is stored in Vault under kv/openai",
            "docker login --password-stdin < ~/.docker/token",
            "token_type: bearer",
            "max_tokens: 4096",
            "secret_name: prod-db-credentials",
            "password_policy: at least 12 characters with a symbol",
            "aws_access_key_id is read from the instance role, not from env",
            "DB_PASSWORD is set in the staging environment, ask ops",
            "api_key: ***",
            "password: (redacted)",
        ],
    ),
    "prose_with_keywords": (
        lambda: "",
        [
            "The password reset email never arrived for the new hire",
            "Token count exceeded the 8k limit, so the summary was cut",
            "Rotate the secret every 90 days; the reminder is in the team calendar",
            "The login failed because the password was wrong, not because of the VPN",
            "Bearer tokens expire after 15 minutes in staging",
            "The secret manager sync runs at 02:00",
            "My password is too short for the new policy, need to pick another",
            "The passphrase was accepted after the agent restarted",
            "Secrets are mounted read-only at /run/secrets",
            "密码错误次数过多导致账号被锁，半小时后自动解锁",
            "令牌过期后需要重新登录",
            "API key auth is deprecated in favour of OAuth",
        ],
    ),
    "numbers_and_ids": (
        lambda: rng.choice(
            [
                f"{rng.randint(1_600_000_000_000, 1_800_000_000_000)}",
                f"10.{rng.randint(0, 255)}.{rng.randint(0, 255)}.{rng.randint(1, 254)}:{rng.choice([5432, 6379, 8080])}",
                f"arn:aws:iam::{rng.randint(10**11, 10**12 - 1)}:role/deploy",
                f"PR #{rng.randint(100, 9999)}",
                f"build {rng.randint(2023, 2026)}{rng.randint(1, 12):02d}{rng.randint(1, 28):02d}.{rng.randint(1, 9)}",
                f"JIRA-{rng.randint(100, 99999)}",
                f"{rng.randint(2023, 2026)}-0{rng.randint(1, 9)}-1{rng.randint(0, 9)}T1{rng.randint(0, 9)}:3{rng.randint(0, 9)}:00Z",
            ]
        ),
        [
            "Seen at {s}",
            "The incident is tracked as {s}",
            "connect to {s}",
            "timestamp {s} in the log",
            "assume {s} for the deploy",
            "ticket {s} is closed",
            "listening on {s}",
            "reference {s}",
        ],
    ),
    "public_key": (
        lambda: rng.choice(
            [
                "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + pick(B64, 43) + " alice@laptop",
                "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABgQ" + pick(B64, 120) + " deploy@ci",
                "age1" + pick("qpzry9x8gf2tvdw0s3jn54khce6mua7l", 58),
            ]
        ),
        [
            "Added {s} to authorized_keys on the bastion",
            "The CI public key is {s}",
            "recipient: {s}",
            "authorized_keys now holds {s}",
        ],
    ),
    "code_snippet": (
        lambda: "",
        [
            "for token in tokens: print(token)",
            "if password == confirm_password: save_user()",
            "const secret = process.env.SESSION_SECRET;",
            "def check_password(password: str) -> bool:",
            "tokenizer = AutoTokenizer.from_pretrained('intfloat/multilingual-e5-small')",
            "SELECT count(*) FROM api_keys WHERE revoked_at IS NULL",
            "kubectl create secret generic db-creds --from-file=./creds.env",
            "kubectl get secret db-creds -o yaml | grep -v data",
            "git config --global credential.helper osxkeychain",
            "token = request.headers.get('Authorization', '').removeprefix('Bearer ')",
            "password = getpass.getpass()",
            "api_key = load_key(path=KEY_PATH)",
        ],
    ),
}


# Issue 29: keys with no name beside them, and the ordinary data of the same length and
# alphabet they must be told from. Drawn after the rows above, so those stay as they were.
def azure_key() -> str:
    return base64.b64encode(rng.randbytes(64)).decode()


def b64_text(n: int) -> str:
    """base64 of a sentence, cut to n characters (ordinary data in base64)."""
    sentence = rng.choice(
        [
            "export LANG=en_US.UTF-8 and restart the worker pool before the deploy",
            "The quick brown fox jumps over the lazy dog while the build is running",
            "部署之前先把测试环境的数据库迁移跑完，然后再重启服务，最后检查日志",
            '{"user": "ops", "role": "viewer", "region": "ap-southeast-1", "ttl": 3600}',
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: courier-config\n",
        ]
    )
    return base64.b64encode(sentence.encode()).decode()[:n]


def sha1_b64() -> str:
    return base64.b64encode(hashlib.sha1(str(rng.random()).encode()).digest()).decode()


def sha256_b64() -> str:
    return base64.b64encode(hashlib.sha256(str(rng.random()).encode()).digest()).decode()


def sha512_b64() -> str:
    return base64.b64encode(hashlib.sha512(str(rng.random()).encode()).digest()).decode()


def camel(n: int) -> str:
    """An identifier of n characters made of words and a number (a long Java or C# name)."""
    words = ["Abstract", "Courier", "Dispatch", "Handler", "Factory", "Request", "Retry", "Policy",
             "Config", "Loader", "Metrics", "Exporter", "Shard", "Router", "Session", "Token"]  # fmt: skip
    out = ""
    while len(out) < n - 2:
        out += rng.choice(words)
    return out[: n - 2] + str(rng.randint(10, 99))


def word_path(n: int) -> str:
    words = ["internal", "platform", "courier", "dispatch", "handlers", "v2", "api", "proto", "gen", "Models"]
    out = rng.choice(words)
    while len(out) < n:
        out += "/" + rng.choice(words)
    return out[:n]


BARE_SECRETS: dict[str, tuple] = {
    "aws_secret_access_key_bare": (
        aws_secret,
        [
            "aws s3 ls worked once I pasted {s} into the prompt",
            "the second half of the backup bot's pair: {s}",
            "{s}",
            "Rotated it; the new one is {s} (old one revoked)",
            "CI 里备份账号用的是 {s}",
            "boto3.client('s3', aws_access_key_id=key_id, aws_secret_access_key=os.environ['X']) then {s}",
            "The credentials CSV row was backup-bot,{s}",
            "copy {s} into the vault before Friday",
        ],
    ),
    "azure_storage_key_bare": (
        azure_key,
        [
            "The logs account's primary key is now {s}",
            "{s}",
            "az storage blob list --account-name acmelogs --account-key {s}",
            "存储账户密钥换成了 {s}",
        ],
    ),
}

BARE_LOOKALIKES: dict[str, tuple] = {
    "base64_of_text": (
        lambda: b64_text(rng.choice([40, 40, 88, 60])),
        [
            "The ConfigMap's data field holds {s}",
            "echo {s} | base64 -d",
            "Decoded {s} and it was just the locale settings",
            "payload: {s}",
            "日志里的 base64 是 {s}，解出来是部署说明",
            "The webhook body was {s}",
        ],
    ),
    "digest_base64": (
        lambda: rng.choice(["sha512-" + sha512_b64(), "sha256-" + sha256_b64(), sha256_b64(), sha1_b64()]),
        [
            'package-lock.json: "integrity": "{s}"',
            "The subresource integrity of the bundle is {s}",
            "Content-MD5 check failed: expected {s}",
            "the release artifact's digest is {s}",
            "npm ci complained that {s} did not match",
            "校验和 {s} 对不上",
        ],
    ),
    "long_identifier": (
        lambda: rng.choice([camel(40), camel(40), word_path(40), camel(88)]),
        [
            "The failing test is {s}",
            "Renamed {s} in the refactor",
            "grep -rn {s} src/",
            "{s} throws on an empty shard list",
            "the class {s} was removed in 2.0",
            "imports from {s}",
        ],
    ),
    "hex_and_ids": (
        lambda: rng.choice([sha(40), sha(64), sha(32), str(uuid.UUID(int=rng.getrandbits(128))), sha(40).upper()]),
        [
            "git show {s}",
            "ECS task {s} stopped with exit code 137",
            "Sentry event {s} has the full trace",
            "the S3 request id was {s}",
            "trace_id={s} span_id=00f067aa0ba902b7",
            "LFS object {s} is missing on the remote",
        ],
    ),
}


def main() -> None:
    rows = []
    for kind, (make, templates) in SECRETS.items():
        for template in templates:
            s = make()
            rows.append({"label": "secret", "kind": kind, "text": template.replace("{s}", s), "secret": s})
    for kind, (make, templates) in LOOKALIKES.items():
        for template in templates:
            rows.append({"label": "lookalike", "kind": kind, "text": template.replace("{s}", make())})
    for kind, (make, templates) in BARE_SECRETS.items():
        for template in templates:
            s = make()
            rows.append({"label": "secret", "kind": kind, "text": template.replace("{s}", s), "secret": s})
    for kind, (make, templates) in BARE_LOOKALIKES.items():
        for template in templates:
            rows.append({"label": "lookalike", "kind": kind, "text": template.replace("{s}", make())})
    out = Path(__file__).with_name("secrets_labelled.jsonl")
    out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    count = {lab: sum(r["label"] == lab for r in rows) for lab in ("secret", "lookalike")}
    print(
        f"{out}: {count['secret']} secrets of {len(SECRETS) + len(BARE_SECRETS)} kinds, {count['lookalike']} look-alikes "
        f"of {len(LOOKALIKES) + len(BARE_LOOKALIKES)} kinds"
    )


if __name__ == "__main__":
    main()
