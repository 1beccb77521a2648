//! Server-side messages in English and Chinese, chosen per request from `Accept-Language`.

use std::borrow::Cow;

/// The language a reply is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Lang {
    #[default]
    En,
    Zh,
}

impl Lang {
    /// Picks Chinese when the first language tag of an `Accept-Language` value is `zh*`.
    pub fn from_accept_language(value: Option<&str>) -> Self {
        let first = value
            .and_then(|v| v.split(',').next())
            .map(|tag| tag.trim().to_ascii_lowercase())
            .unwrap_or_default();
        if first.starts_with("zh") {
            Lang::Zh
        } else {
            Lang::En
        }
    }
}

/// Every message the API can send, with its parameters.
#[derive(Debug, Clone, PartialEq)]
pub enum Msg {
    NotLoggedIn,
    UserHeaderMissing,
    UserHeaderMismatch,
    SessionExpired,
    PermissionDenied,
    UserBanned,
    NotInitialized,
    AlreadyInitialized,
    SetupNotAllowed,
    SetupUsernameRequired,
    SetupUsernameTooLong {
        max: usize,
    },
    SetupPasswordTooShort {
        min: usize,
    },
    PasswordsDiffer,
    UsernamePasswordRequiredLogin,
    UsernamePasswordRequired,
    UsernameTooLong {
        max: usize,
    },
    UsernameInvalid,
    PasswordTooShort {
        min: usize,
    },
    PasswordTooLong {
        max: usize,
    },
    DisplayNameTooLong {
        max: usize,
    },
    WrongCredentials,
    WrongOriginalPassword,
    OriginalPasswordRequired,
    UsernameTaken,
    PasswordLoginDisabled,
    RegisterDisabled,
    PasswordRegisterDisabled,
    EmailRequired,
    EmailInvalid,
    EmailDomainNotAllowed,
    EmailAliasNotAllowed,
    VerificationCodeRequired,
    VerificationCodeInvalid,
    UserNotFound,
    CannotActOnEqualOrHigherRole,
    CannotCreateEqualOrHigherRole,
    OnlyRootCanPromote,
    AlreadyAdmin,
    AlreadyCommonUser,
    CannotDemoteRoot,
    CannotDeleteRoot,
    CannotDisableRoot,
    CannotEnableStatus3,
    UnknownAction {
        action: String,
    },
    QuotaNegative,
    GroupUnknown {
        group: String,
    },
    DefaultPasswordWarning,
    InvalidJsonBody {
        detail: String,
    },
    InvalidQuery {
        detail: String,
    },
    NotFound,
    UnknownOption {
        key: String,
    },
    OptionNotBoolean {
        key: String,
    },
    OptionNotInteger {
        key: String,
    },
    OptionNotNumber {
        key: String,
    },
    OptionBelowMin {
        key: String,
        min: i64,
    },
    OptionOutOfRange {
        key: String,
        min: String,
        max: String,
    },
    OptionNotInList {
        key: String,
        allowed: String,
    },
    StatusRangesInvalid {
        key: String,
    },
    OptionNotJson {
        key: String,
    },
    /// A JSON option whose shape is not the documented one (`expected` shows it).
    OptionBadShape {
        key: String,
        expected: &'static str,
    },
    TopupGroupRatioNotJson,
    EmailDomainFormat {
        domain: String,
    },
    EmailDomainDuplicate {
        domain: String,
    },
    RebateOutOfRange,
    UrlMustBeHttp {
        key: String,
    },
    ServerAddressFirst,
    SensitiveWordRegex {
        line: String,
    },
    SmtpNotConfigured,
    EmailSendFailed,
    VerificationCooldown {
        seconds: i64,
    },
    EmailTaken,
    TurnstileChecking,
    TurnstileFailed,
    ServerAddressMissing,
    ResetEmailSent,
    VerificationCodeSent,
    TokenNameRequired,
    TokenNameTooLong {
        max: usize,
    },
    TokenNotFound,
    TokenExpiredCannotEnable,
    TokenExhaustedCannotEnable,
    ExpiryInvalid,
    BatchCountInvalid {
        max: i64,
    },
    AllowIpInvalid {
        entry: String,
    },
    GroupNotUsable {
        group: String,
    },
    StatusInvalid,
    RateLimitInvalid,
    RedemptionNotFound,
    RedemptionCodeRequired,
    RedemptionInvalid,
    RedemptionUsed,
    RedemptionDisabled,
    RedemptionNotYetValid,
    RedemptionExpired,
    GiftAlreadyUsed,
    GiftUsedUp,
    RedemptionWindowInvalid,
    RedemptionQuotaInvalid,
    RedemptionCountInvalid {
        max: i64,
    },
    RedemptionKeyInvalid,
    RedemptionKeyTaken,
    RedemptionNotEditable,
    RedemptionUsedCannotEnable,
    RedemptionIdsRequired,
    NameRequired,
    CheckInDisabled,
    AlreadyCheckedIn,
    AffTransferTooSmall {
        min: String,
    },
    AffTransferTooLarge,
    NotifyTypeInvalid,
    WebhookUrlHttps,
    WebhookUrlRequired,
    ChannelNameKeyRequired,
    ChannelKeyRequiredForDestination,
    ChannelModelsRequired,
    ChannelTypeUnknown {
        channel_type: i64,
    },
    ChannelJsonInvalid {
        field: String,
    },
    ChannelRegionInvalid,
    ChannelPriorityInvalid,
    ChannelWeightInvalid,
    ChannelNotFound,
    ChannelKeyNotFound,
    ChannelKeyActionUnknown,
    ChannelKeysNoneLeft,
    ChannelIdsRequired,
    TagRequired,
    NothingChanged,
    ChannelTestFailed {
        detail: String,
    },
    BalanceNotSupported,
    BalanceFailed {
        detail: String,
    },
    FetchModelsFailed {
        detail: String,
    },
    KeyRequiredForModels,
    TargetTimestampRequired,
    DashboardRangeTooLong {
        days: i64,
    },
    TopupAmountTooSmall {
        min: i64,
    },
    OnlineTopupDisabled,
    PaymentMethodInvalid,
    TooManyRequests,
    TooManyAttempts {
        seconds: u64,
    },
    ServerBusy,
    RedemptionKeyTooShort {
        min: usize,
    },
    QuotaBeforeRequired,
    QuotaChanged {
        current: i64,
    },
    QuotaEditAmbiguous,
    OAuthDisabled {
        provider: &'static str,
    },
    OAuthNotConfigured {
        provider: &'static str,
    },
    OAuthStateInvalid,
    OAuthCodeMissing,
    OAuthFailed {
        provider: &'static str,
    },
    OAuthAccountTaken {
        provider: &'static str,
    },
    AccountDeleted,
    TelegramSignatureInvalid,
    TelegramLoginExpired,
    LastSignInMethod,
    Internal,
}

impl Msg {
    /// The text of this message in `lang`.
    pub fn text(&self, lang: Lang) -> Cow<'static, str> {
        let (en, zh): (Cow<'static, str>, Cow<'static, str>) = match self {
            Msg::NotLoggedIn => ("not logged in or login expired, please log in again".into(), "未登录或登录已过期，请重新登录！".into()),
            Msg::UserHeaderMissing => ("Unauthorized, New-Api-User header not provided".into(), "无权进行此操作，未提供 New-Api-User".into()),
            Msg::UserHeaderMismatch => ("Unauthorized, New-Api-User does not match the logged-in user".into(), "无权进行此操作，New-Api-User 与登录用户不匹配".into()),
            Msg::SessionExpired => ("login expired, please log in again".into(), "登录已过期，请重新登录".into()),
            Msg::PermissionDenied => ("permission denied".into(), "无权进行此操作，权限不足".into()),
            Msg::UserBanned => ("user has been banned".into(), "用户已被封禁".into()),
            Msg::NotInitialized => ("the system is not initialized yet; complete /setup first".into(), "系统尚未初始化，请先完成 /setup".into()),
            Msg::AlreadyInitialized => ("the system is already initialized".into(), "系统已经初始化".into()),
            Msg::SetupNotAllowed => ("setup is accepted only from this machine or with the setup token printed in the control plane's log".into(), "仅允许本机或持有控制面日志中打印的初始化令牌进行初始化".into()),
            Msg::SetupUsernameRequired => ("please enter the admin username".into(), "请输入管理员用户名".into()),
            Msg::SetupUsernameTooLong { max } => (format!("the admin username must be at most {max} characters").into(), format!("管理员用户名长度不能超过 {max} 个字符").into()),
            Msg::SetupPasswordTooShort { min } => (format!("password must be at least {min} characters").into(), format!("密码长度至少为{min}个字符").into()),
            Msg::PasswordsDiffer => ("the two passwords do not match".into(), "两次输入的密码不一致".into()),
            Msg::UsernamePasswordRequiredLogin => ("please enter username and password".into(), "请输入用户名和密码！".into()),
            Msg::UsernamePasswordRequired => ("username and password cannot be empty".into(), "用户名和密码不能为空！".into()),
            Msg::UsernameTooLong { max } => (format!("username must be at most {max} characters").into(), format!("用户名长度不能超过 {max} 个字符").into()),
            Msg::UsernameInvalid => ("username cannot contain spaces, '@' or control characters".into(), "用户名不能包含空格、@ 或控制字符".into()),
            Msg::PasswordTooShort { min } => (format!("password must be at least {min} characters").into(), format!("密码长度不得小于 {min} 位！").into()),
            Msg::PasswordTooLong { max } => (format!("password must be at most {max} characters").into(), format!("密码长度不得大于 {max} 位！").into()),
            Msg::DisplayNameTooLong { max } => (format!("display name must be at most {max} characters").into(), format!("显示名称长度不能超过 {max} 个字符").into()),
            Msg::WrongCredentials => ("wrong username or password, or the user has been banned".into(), "用户名或密码错误，或用户已被封禁".into()),
            Msg::WrongOriginalPassword => ("the original password is wrong".into(), "原密码错误".into()),
            Msg::OriginalPasswordRequired => ("the original password is required to set a new one".into(), "修改密码需要提供原密码".into()),
            Msg::UsernameTaken => ("username already exists".into(), "用户名已存在".into()),
            Msg::PasswordLoginDisabled => ("the administrator has disabled password login".into(), "管理员关闭了密码登录".into()),
            Msg::RegisterDisabled => ("the administrator has disabled new user registration".into(), "管理员关闭了新用户注册".into()),
            Msg::PasswordRegisterDisabled => ("the administrator has disabled registration with a password; use a third-party account".into(), "管理员关闭了通过密码进行注册，请使用第三方账户验证的形式进行注册".into()),
            Msg::EmailRequired => ("please enter the email".into(), "请输入邮箱！".into()),
            Msg::EmailInvalid => ("the email address is invalid".into(), "邮箱地址无效".into()),
            Msg::EmailDomainNotAllowed => ("the administrator has enabled an email domain whitelist and this email domain is not in it".into(), "管理员启用了邮箱域名白名单，您的邮箱地址的域名不在白名单中".into()),
            Msg::EmailAliasNotAllowed => ("the administrator has disabled email aliases".into(), "管理员已启用邮箱地址别名限制，您的邮箱地址由于包含特殊符号而被拒绝".into()),
            Msg::VerificationCodeRequired => ("please enter the verification code".into(), "请输入验证码！".into()),
            Msg::VerificationCodeInvalid => ("the verification code is wrong or has expired".into(), "验证码错误或已过期".into()),
            Msg::UserNotFound => ("user does not exist".into(), "用户不存在".into()),
            Msg::CannotActOnEqualOrHigherRole => ("cannot act on a user whose role is equal to or higher than yours".into(), "无权操作同级或更高级别的用户".into()),
            Msg::CannotCreateEqualOrHigherRole => ("cannot create a user whose role is equal to or higher than yours".into(), "无法创建权限大于等于自己的用户".into()),
            Msg::OnlyRootCanPromote => ("only the super administrator can promote users".into(), "只有超级管理员才能提升用户权限".into()),
            Msg::AlreadyAdmin => ("this user is already an administrator".into(), "该用户已经是管理员".into()),
            Msg::AlreadyCommonUser => ("this user is already a normal user".into(), "该用户已经是普通用户".into()),
            Msg::CannotDemoteRoot => ("the super administrator cannot be demoted".into(), "无法降级超级管理员用户".into()),
            Msg::CannotDeleteRoot => ("the super administrator cannot be deleted".into(), "不能删除超级管理员账户".into()),
            Msg::CannotDisableRoot => ("the super administrator cannot be disabled".into(), "无法禁用超级管理员用户".into()),
            Msg::CannotEnableStatus3 => ("this user cannot be enabled".into(), "该用户无法启用".into()),
            Msg::UnknownAction { action } => (format!("unknown action: {action}").into(), format!("未知操作：{action}").into()),
            Msg::QuotaNegative => ("quota cannot be negative".into(), "额度不能为负数".into()),
            Msg::GroupUnknown { group } => (format!("group {group} does not exist").into(), format!("分组 {group} 不存在").into()),
            Msg::DefaultPasswordWarning => ("you are using the default password, change it immediately".into(), "您正在使用默认密码！请立刻修改默认密码！".into()),
            Msg::InvalidJsonBody { detail } => (format!("invalid request body: {detail}").into(), format!("请求体无效：{detail}").into()),
            Msg::InvalidQuery { detail } => (format!("invalid query parameters: {detail}").into(), format!("查询参数无效：{detail}").into()),
            Msg::NotFound => ("not found".into(), "未找到".into()),
            Msg::UnknownOption { key } => (format!("unknown option: {key}").into(), format!("未知的配置项：{key}").into()),
            Msg::OptionNotBoolean { key } => (format!("{key} must be true or false").into(), format!("{key} 只能是 true 或 false").into()),
            Msg::OptionNotInteger { key } => (format!("{key} must be an integer").into(), format!("{key} 必须是整数").into()),
            Msg::OptionNotNumber { key } => (format!("{key} must be a number").into(), format!("{key} 必须是数字").into()),
            Msg::OptionBelowMin { key, min } => (format!("{key} must be at least {min}").into(), format!("{key} 不能小于 {min}").into()),
            Msg::OptionOutOfRange { key, min, max } => (format!("{key} must be between {min} and {max}").into(), format!("{key} 必须在 {min} 到 {max} 之间").into()),
            Msg::OptionNotInList { key, allowed } => (format!("{key} must be one of: {allowed}").into(), format!("{key} 只能是以下值之一：{allowed}").into()),
            Msg::StatusRangesInvalid { key } => (format!("{key} must be a comma list of HTTP status codes or ranges such as 500-503").into(), format!("{key} 必须是逗号分隔的状态码或范围，例如 500-503").into()),
            Msg::OptionNotJson { key } => (format!("{key} is not a valid JSON string").into(), format!("{key} 不是合法的 JSON 字符串").into()),
            Msg::OptionBadShape { key, expected } => (format!("{key} must look like {expected}, with non-negative numbers").into(), format!("{key} 的格式应为 {expected}，数值不能为负").into()),
            Msg::TopupGroupRatioNotJson => ("the top-up group ratio is not a valid JSON string".into(), "充值分组倍率不是合法的 JSON 字符串".into()),
            Msg::EmailDomainFormat { domain } => (format!("invalid email domain format: {domain}").into(), format!("邮箱域名格式不正确：{domain}").into()),
            Msg::EmailDomainDuplicate { domain } => (format!("this domain is already in the whitelist: {domain}").into(), format!("该域名已存在于白名单中：{domain}").into()),
            Msg::RebateOutOfRange => ("the rebate percentage must be between 0 and 100".into(), "返佣百分比必须在0到100之间".into()),
            Msg::UrlMustBeHttp { key } => (format!("{key} must begin with http:// or https://").into(), format!("{key} 必须以 http:// 或 https:// 开头").into()),
            Msg::ServerAddressFirst => ("please set the server address (ServerAddress) first".into(), "请先填写服务器地址".into()),
            Msg::SensitiveWordRegex { line } => (format!("invalid regular expression in sensitive words: {line}").into(), format!("敏感词中的正则表达式无效：{line}").into()),
            Msg::SmtpNotConfigured => ("the administrator has not configured SMTP, so no email can be sent".into(), "管理员未配置 SMTP，无法发送邮件".into()),
            Msg::EmailSendFailed => ("the email could not be sent, try again later".into(), "邮件发送失败，请稍后重试".into()),
            Msg::VerificationCooldown { seconds } => (format!("please wait {seconds} seconds before requesting another code").into(), format!("请 {seconds} 秒后再获取验证码").into()),
            Msg::EmailTaken => ("this email address is already in use".into(), "邮箱地址已被占用".into()),
            Msg::TurnstileChecking => ("please retry in a few seconds, Turnstile is checking the environment".into(), "Turnstile 正在检查用户环境，请稍后重试".into()),
            Msg::TurnstileFailed => ("human verification failed, please retry".into(), "人机验证失败，请重试".into()),
            Msg::ServerAddressMissing => ("the administrator has not set the server address".into(), "管理员未设置服务器地址".into()),
            Msg::ResetEmailSent => ("if this address belongs to an account, a password reset email is on its way".into(), "如果该邮箱已注册，重置密码邮件已发送".into()),
            Msg::VerificationCodeSent => ("the verification code has been sent".into(), "验证码发送成功，请检查邮箱".into()),
            Msg::TokenNameRequired => ("please enter a token name".into(), "请输入令牌名称".into()),
            Msg::TokenNameTooLong { max } => (format!("the token name must be at most {max} characters").into(), format!("令牌名称不能超过 {max} 个字符").into()),
            Msg::TokenNotFound => ("the token does not exist".into(), "令牌不存在".into()),
            Msg::TokenExpiredCannotEnable => ("the token has expired and cannot be enabled; change its expiry time first or make it never expire".into(), "令牌已过期，无法启用，请先修改令牌过期时间，或者设置为永不过期".into()),
            Msg::TokenExhaustedCannotEnable => ("the token's quota is used up and it cannot be enabled; raise its remaining quota or make it unlimited first".into(), "令牌可用额度已用尽，无法启用，请先修改令牌剩余额度，或者设置为无限额度".into()),
            Msg::ExpiryInvalid => ("expiry time format error".into(), "过期时间格式错误".into()),
            Msg::BatchCountInvalid { max } => (format!("the number of tokens must be a whole number from 1 to {max}").into(), format!("令牌数量必须是 1 到 {max} 之间的整数").into()),
            Msg::AllowIpInvalid { entry } => (format!("not an IP address or CIDR range: {entry}").into(), format!("不是合法的 IP 地址或 CIDR 网段：{entry}").into()),
            Msg::GroupNotUsable { group } => (format!("you have no access to group {group}").into(), format!("无权访问 {group} 分组").into()),
            Msg::StatusInvalid => ("invalid status".into(), "状态无效".into()),
            Msg::RateLimitInvalid => ("rate limit: the period must be at least 1 second and the counts at least 0".into(), "限流设置无效：周期至少 1 秒，次数不能为负".into()),
            Msg::RedemptionNotFound => ("the redemption code does not exist".into(), "兑换码不存在".into()),
            Msg::RedemptionCodeRequired => ("please enter the redemption code".into(), "请输入兑换码！".into()),
            Msg::RedemptionInvalid => ("invalid redemption code".into(), "无效的兑换码".into()),
            Msg::RedemptionUsed => ("this redemption code has already been used".into(), "该兑换码已被使用".into()),
            Msg::RedemptionDisabled => ("this redemption code is disabled".into(), "该兑换码已被禁用".into()),
            Msg::RedemptionNotYetValid => ("this redemption code is not valid yet".into(), "该兑换码尚未生效".into()),
            Msg::RedemptionExpired => ("this redemption code has expired".into(), "该兑换码已过期".into()),
            Msg::GiftAlreadyUsed => ("you have already redeemed this gift code".into(), "您已经使用过该礼品码".into()),
            Msg::GiftUsedUp => ("this gift code has reached its maximum number of uses".into(), "该礼品码已达到最大使用次数".into()),
            Msg::RedemptionWindowInvalid => ("the effective time must be earlier than the expiry time".into(), "生效时间必须早于过期时间".into()),
            Msg::RedemptionQuotaInvalid => ("the quota must be a positive integer".into(), "额度必须是正整数".into()),
            Msg::RedemptionCountInvalid { max } => (format!("the number of codes must be a whole number from 1 to {max}").into(), format!("兑换码数量必须是 1 到 {max} 之间的整数").into()),
            Msg::RedemptionKeyInvalid => ("a custom code must be 16 to 32 letters, digits, '-' or '_', and only one code can be created with it".into(), "自定义兑换码须为 16 到 32 位字母、数字、- 或 _，且只能创建一个".into()),
            Msg::RedemptionKeyTaken => ("this redemption code already exists".into(), "该兑换码已存在".into()),
            Msg::RedemptionNotEditable => ("only unused codes can be edited".into(), "只有未使用的兑换码可以编辑".into()),
            Msg::RedemptionUsedCannotEnable => ("a used code cannot be enabled".into(), "已使用的兑换码无法启用".into()),
            Msg::RedemptionIdsRequired => ("select codes first".into(), "请先选择兑换码".into()),
            Msg::NameRequired => ("the name is required".into(), "名称不能为空".into()),
            Msg::CheckInDisabled => ("check-in is not enabled".into(), "签到功能未开启".into()),
            Msg::AlreadyCheckedIn => ("already checked in today".into(), "今天已经签到过了".into()),
            Msg::AffTransferTooSmall { min } => (format!("the transfer amount must be at least {min}").into(), format!("划转金额最低为 {min}").into()),
            Msg::AffTransferTooLarge => ("the transfer amount exceeds your invitation earnings".into(), "划转金额超过了邀请奖励余额".into()),
            Msg::NotifyTypeInvalid => ("the notification type must be email or webhook".into(), "通知方式只能是 email 或 webhook".into()),
            Msg::WebhookUrlHttps => ("the webhook address must start with https://".into(), "Webhook 地址必须以 https:// 开头".into()),
            Msg::WebhookUrlRequired => ("please enter the webhook address".into(), "请输入 Webhook 地址".into()),
            Msg::ChannelNameKeyRequired => ("please fill in the channel name and key".into(), "请填写渠道名称和渠道密钥！".into()),
            Msg::ChannelKeyRequiredForDestination => ("the base URL, header override or proxy changed: enter the channel's key again to save".into(), "修改了 Base URL、请求头覆盖或代理设置，请重新填写渠道密钥后保存".into()),
            Msg::ChannelModelsRequired => ("please choose at least one model".into(), "请至少选择一个模型！".into()),
            Msg::ChannelTypeUnknown { channel_type } => (format!("unknown channel type {channel_type}").into(), format!("未知的渠道类型 {channel_type}").into()),
            Msg::ChannelJsonInvalid { field } => (format!("{field} must be valid JSON").into(), format!("{field} 必须是合法的 JSON 格式！").into()),
            Msg::ChannelRegionInvalid => ("the region must be plain text or a JSON object".into(), "部署地区必须是纯文本或合法的 JSON 对象".into()),
            Msg::ChannelPriorityInvalid => ("the priority must be an integer of at least -999".into(), "优先级必须是不小于 -999 的整数".into()),
            Msg::ChannelWeightInvalid => ("the weight must be a non-negative integer".into(), "权重必须是非负整数".into()),
            Msg::ChannelNotFound => ("the channel does not exist, refresh and try again".into(), "渠道不存在，请刷新后重试".into()),
            Msg::ChannelKeyNotFound => ("the channel has no key with this index, refresh and try again".into(), "渠道没有该序号的密钥，请刷新后重试".into()),
            Msg::ChannelKeyActionUnknown => ("unknown key action".into(), "未知的密钥操作".into()),
            Msg::ChannelKeysNoneLeft => ("every key is disabled: deleting them would leave the channel without a key".into(), "所有密钥均已禁用，删除后渠道将没有密钥".into()),
            Msg::ChannelIdsRequired => ("select channels first".into(), "请先选择渠道".into()),
            Msg::TagRequired => ("the tag cannot be empty".into(), "标签不能为空".into()),
            Msg::NothingChanged => ("no changes".into(), "没有变更".into()),
            Msg::ChannelTestFailed { detail } => (format!("test failed: {detail}").into(), format!("测试失败：{detail}").into()),
            Msg::BalanceNotSupported => ("balance queries are not supported for this channel type".into(), "该渠道类型尚未实现余额查询".into()),
            Msg::BalanceFailed { detail } => (format!("balance query failed: {detail}").into(), format!("余额查询失败：{detail}").into()),
            Msg::FetchModelsFailed { detail } => (format!("fetching the model list failed: {detail}").into(), format!("获取模型列表失败：{detail}").into()),
            Msg::KeyRequiredForModels => ("a new channel needs a key before models can be fetched".into(), "新建渠道需要先填写密钥才能获取模型列表".into()),
            Msg::TargetTimestampRequired => ("choose the time before which logs are deleted".into(), "请选择日志清理时间".into()),
            Msg::DashboardRangeTooLong { days } => (format!("the time range cannot be longer than {days} days").into(), format!("时间跨度不能超过 {days} 天").into()),
            Msg::TopupAmountTooSmall { min } => (format!("the top-up amount cannot be less than {min}").into(), format!("充值数量不能小于 {min}").into()),
            Msg::OnlineTopupDisabled => ("the administrator has not enabled online top-up".into(), "管理员未开启在线充值".into()),
            Msg::PaymentMethodInvalid => ("the payment method must be zfb (Alipay) or wx (WeChat Pay)".into(), "支付方式只能是 zfb（支付宝）或 wx（微信）".into()),
            Msg::TooManyRequests => ("too many requests, try again later".into(), "请求过于频繁，请稍后再试".into()),
            Msg::TooManyAttempts { seconds } => (format!("too many attempts, try again in {seconds} seconds").into(), format!("尝试次数过多，请 {seconds} 秒后再试").into()),
            Msg::ServerBusy => ("the server is busy, try again in a moment".into(), "服务器繁忙，请稍后再试".into()),
            Msg::RedemptionKeyTooShort { min } => (format!("a custom code must be at least {min} characters long, so that it cannot be guessed").into(), format!("自定义兑换码长度至少为 {min} 位，以免被猜中").into()),
            Msg::QuotaBeforeRequired => ("to change the quota, send quota_before (the quota the form was loaded with) or quota_delta".into(), "修改额度时请同时提供 quota_before（表单加载时的额度），或使用 quota_delta".into()),
            Msg::QuotaChanged { current } => (format!("the quota changed to {current} after the form was loaded; reload and try again").into(), format!("表单加载后额度已变为 {current}，请刷新后重试").into()),
            Msg::QuotaEditAmbiguous => ("send either a new quota or quota_delta, not both".into(), "请只提供新额度或 quota_delta 其中之一".into()),
            Msg::OAuthDisabled { provider } => (format!("the administrator has not enabled sign-in and registration with {provider}").into(), format!("管理员未开启通过 {provider} 登录以及注册").into()),
            Msg::OAuthNotConfigured { provider } => (format!("sign-in with {provider} is not fully configured; contact the administrator").into(), format!("{provider} 登录的配置不完整，请联系管理员").into()),
            Msg::OAuthStateInvalid => ("the sign-in has expired or was not started in this browser; please start it again".into(), "state 参数无效或已过期，请重新发起登录".into()),
            Msg::OAuthCodeMissing => ("no authorization code was given".into(), "未提供授权码".into()),
            Msg::OAuthFailed { provider } => (format!("{provider} did not confirm the sign-in; please try again").into(), format!("{provider} 验证失败，请重试").into()),
            Msg::OAuthAccountTaken { provider } => (format!("this {provider} account is already bound to another user").into(), format!("该 {provider} 账户已被绑定").into()),
            Msg::AccountDeleted => ("this account has been deleted".into(), "该账户已注销".into()),
            Msg::TelegramSignatureInvalid => ("the Telegram login data could not be verified".into(), "Telegram 登录数据校验失败".into()),
            Msg::TelegramLoginExpired => ("the Telegram login is too old; please sign in again".into(), "Telegram 登录已过期，请重新登录".into()),
            Msg::LastSignInMethod => ("this is the account's only way to sign in; set a password or bind another account first".into(), "这是账户唯一的登录方式，请先设置密码或绑定其他账户".into()),
            Msg::Internal => ("internal server error, contact the administrator".into(), "服务器内部错误，请联系管理员".into()),
        };
        match lang {
            Lang::En => en,
            Lang::Zh => zh,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accept_language_picks_chinese_only_for_zh_first() {
        assert_eq!(
            Lang::from_accept_language(Some("zh-CN,zh;q=0.9,en;q=0.8")),
            Lang::Zh
        );
        assert_eq!(Lang::from_accept_language(Some("en-US,zh;q=0.5")), Lang::En);
        assert_eq!(Lang::from_accept_language(None), Lang::En);
    }

    #[test]
    fn parameters_appear_in_both_languages() {
        let msg = Msg::PasswordTooShort { min: 8 };
        assert!(msg.text(Lang::En).contains('8'));
        assert_eq!(msg.text(Lang::Zh), "密码长度不得小于 8 位！");
    }
}
